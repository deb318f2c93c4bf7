export type { RefundService } from "./refund.service";
