import { AppError, type Caller, partnerIdOf } from "@pos-cloud/common";
import type { PaymentIntent } from "../../generated/prisma/client";
import type { TransactionRepository } from "./transaction.repository";

export type TransactionService = ReturnType<typeof transactionService>;

export function transactionService(deps: {
  ledger: TransactionRepository;
  /**
   * The payment token check of payment-intents' `retrieve`, described here rather than imported: payment-intents
   * writes its ledger rows through this module, and modules import one way only (no cycles).
   */
  intents: { retrieve(id: string, token: string): Promise<PaymentIntent> };
}) {
  const { ledger, intents } = deps;
  return {
    /** An intent's ledger, oldest first, for whoever holds its payment token (valid as for retrieve). */
    async listForIntent(id: string, token: string) {
      const intent = await intents.retrieve(id, token);
      return ledger.listForIntent(intent.id);
    },
    /** The ledger of an intent the caller has read already (its field `transactions`). */
    ofReadIntent: (id: string) => ledger.listForIntent(id),
    /** One ledger row; another partner's is as absent as an unknown id. */
    async find(caller: Caller, id: string) {
      const row = await ledger.findForPartner(id, partnerIdOf(caller));
      if (!row) throw new AppError("not_found", "transaction not found");
      return row;
    },
  };
}
