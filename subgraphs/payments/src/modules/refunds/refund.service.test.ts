import { intentBody, openTestPayments, seedPartner } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";

let deps: PaymentsDeps;
beforeAll(async () => {
  deps = await openTestPayments();
});
afterAll(() => deps?.close());

/** A captured card payment: refunds of it are recorded without a provider call. */
async function capturedCard(amount = 1200) {
  const seed = await seedPartner(deps);
  const { payment_intent } = await deps.paymentIntents.create(
    seed.caller,
    intentBody({ amount, payment_method_types: ["credit_card"] }),
  );
  await deps.paymentIntents.capture(seed.caller, payment_intent.id, {});
  return { ...seed, id: payment_intent.id };
}

describe("refunds", () => {
  it("records partial refunds up to the amount, with ledger rows, and refuses more", async () => {
    const { caller, id } = await capturedCard();
    const first = await deps.refunds.refund(caller, id, { amount: 200, reason: "damaged" });
    expect(first.refund).toMatchObject({ amount: 200, status: "succeeded", reason: "damaged", currency: "JPY" });
    await expect(deps.refunds.refund(caller, id, { amount: 1001 })).rejects.toMatchObject({
      details: { field: "amount", constraint: "refundable_amount" },
    });
    const rest = await deps.refunds.refund(caller, id, {});
    expect(rest.refund.amount).toBe(1000);
    await expect(deps.refunds.refund(caller, id, {})).rejects.toMatchObject({ details: { field: "amount" } });
    const ledger = await deps.prisma.ledgerTransaction.findMany({
      where: { payment_intent_id: id },
      orderBy: { id: "asc" },
    });
    expect(ledger.map((row) => [row.type, row.amount])).toEqual([
      ["captured", 1200],
      ["refunded", 200],
      ["refunded", 1000],
    ]);
    expect((await deps.prisma.paymentIntent.findUniqueOrThrow({ where: { id } })).status).toBe("succeeded");
  });

  it("never lets concurrent refunds add up to more than the amount", async () => {
    const { caller, id } = await capturedCard();
    const answers = await Promise.allSettled(
      Array.from({ length: 10 }, () => deps.refunds.refund(caller, id, { amount: 300 })),
    );
    expect(answers.filter((answer) => answer.status === "fulfilled")).toHaveLength(4);
    for (const answer of answers) {
      if (answer.status === "rejected") expect(answer.reason).toMatchObject({ details: { field: "amount" } });
    }
    const total = await deps.prisma.refund.aggregate({ where: { payment_intent_id: id }, _sum: { amount: true } });
    expect(total._sum.amount).toBe(1200);
  });

  it("refunds once per Idempotency-Key, refuses open intents and hides other partners' intents", async () => {
    const { caller, id } = await capturedCard();
    const request = { key: "refund-1", request_hash: "h1" };
    const first = await deps.refunds.refund(caller, id, { amount: 100 }, request);
    const again = await deps.refunds.refund(caller, id, { amount: 100 }, request);
    expect(again).toMatchObject({ replayed: true, refund: { id: first.refund.id } });
    expect(await deps.prisma.refund.count({ where: { payment_intent_id: id } })).toBe(1);

    const open = await deps.paymentIntents.create(caller, intentBody());
    await expect(deps.refunds.refund(caller, open.payment_intent.id, {})).rejects.toMatchObject({
      code: "invalid_state",
    });
    const other = await seedPartner(deps);
    await expect(deps.refunds.refund(other.caller, id, {})).rejects.toMatchObject({ code: "not_found" });
    await expect(deps.refunds.refund(caller, id, { amount: -5 })).rejects.toMatchObject({
      details: { field: "amount" },
    });
  });
});
