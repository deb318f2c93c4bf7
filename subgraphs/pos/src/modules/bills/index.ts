export type { BillService } from "./bill.service";
export type { PaymentToApply } from "./bill-payments.service";
