export type { ReceiptService } from "./receipt.service";
