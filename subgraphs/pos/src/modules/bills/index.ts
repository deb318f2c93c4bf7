export type { PaymentToApply } from "./bill.inputs";
export type { BillService } from "./bill.service";
