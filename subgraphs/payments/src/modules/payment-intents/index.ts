export { parseAmount } from "./payment-intent.inputs";
export type { PaymentIntentService } from "./payment-intent.service";
export { hashPaymentToken } from "./payment-token.rules";
