export type { TransactionService } from "./transaction.service";
