export type { RefundService } from "./refund.service";
export type { RefundRequest } from "./refund-recording.service";
