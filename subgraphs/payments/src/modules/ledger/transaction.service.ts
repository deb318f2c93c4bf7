import { AppError, type Caller, partnerIdOf } from "@pos-cloud/common";
import type { PaymentIntentService } from "../payment-intents/payment-intent.service";
import type { TransactionRepository } from "./transaction.repository";

export type TransactionService = ReturnType<typeof transactionService>;

export function transactionService(deps: { ledger: TransactionRepository; intents: PaymentIntentService }) {
  const { ledger, intents } = deps;
  return {
    /** An intent's ledger, oldest first, for whoever holds its payment token (valid as for retrieve). */
    async listForIntent(id: string, token: string) {
      const intent = await intents.retrieve(id, token);
      return ledger.listForIntent(intent.id);
    },
    /** One ledger row; another partner's is as absent as an unknown id. */
    async find(caller: Caller, id: string) {
      const row = await ledger.findForPartner(id, partnerIdOf(caller));
      if (!row) throw new AppError("not_found", "transaction not found");
      return row;
    },
  };
}
