import { AppError, type Caller, partnerIdOf, requireService } from "@pos-cloud/common";
import type { PaymentIntent } from "../../generated/prisma/client";
import type { TransactionRepository } from "./transaction.repository";

export type TransactionService = ReturnType<typeof transactionService>;

export function transactionService(deps: {
  ledger: TransactionRepository;
  /**
   * The payment token check of payment-intents' `retrieve`, described here rather than imported: payment-intents
   * writes its ledger rows through this module, and modules import one way only (no cycles).
   */
  intents: {
    retrieve(id: string, token: string): Promise<PaymentIntent>;
    findForCaller(caller: Caller, id: string): Promise<PaymentIntent | null>;
  };
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
    /** The intent of the partner's ledger row, for the edge's rate limits; null for an unknown or another's row. */
    async intentForEdge(caller: Caller, client_partner_id: number, id: string) {
      requireService(caller);
      return (await ledger.intentOf(id, client_partner_id))?.payment_intent_id ?? null;
    },
    /** One ledger row; another partner's, or one of a store outside the key's, is as absent as an unknown id. */
    async find(caller: Caller, id: string) {
      const row = await ledger.findForPartner(id, partnerIdOf(caller, "payment_intents:read"));
      if (!row || (caller.storeIds?.length && !(await intents.findForCaller(caller, row.payment_intent_id))))
        throw new AppError("not_found", "transaction not found");
      return row;
    },
  };
}
