export { type GatewayClient, gatewayMayRetry } from "./gateway.client";
export { PAYMENT_SCOPE, type PaymentService } from "./payment.service";
export type { PaymentFigures } from "./payment-figures.service";
