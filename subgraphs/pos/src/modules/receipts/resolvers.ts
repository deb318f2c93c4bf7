import type { Resolvers } from "../../resolvers.generated";
import type { ReceiptDocument } from "./receipt.presenter";

export const receiptResolvers: Resolvers = {
  Query: {
    posReceipt: (_, { payment_id, type }, { receipts, caller }) => receipts.get(caller, payment_id, type ?? undefined),
  },
  PosReceipt: {
    text: (receipt: ReceiptDocument, { width }, { receipts }) => receipts.text(receipt, width),
  },
};
