import type { PaymentRow } from "./payment.repository";

/** A payment as clients see it: the method as one object, the gateway intent as transaction_id too. */
export function presentPayment(row: PaymentRow) {
  return {
    ...row,
    transaction_id: row.payment_intent_id,
    payment_method: { type: row.method_type, provider: row.provider, brand: row.emoney_brand },
  };
}

export type PresentedPayment = ReturnType<typeof presentPayment>;
