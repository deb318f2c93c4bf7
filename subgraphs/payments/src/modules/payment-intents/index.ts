export { parseAmount } from "./payment-intent.inputs";
export type { PaymentIntentService } from "./payment-intent.service";
export { type IntentChange, transitionWithin } from "./payment-intent.transition";
export { hashPaymentToken } from "./payment-token";
