import { randomInt, randomUUID } from "node:crypto";
import { type AppError, type Caller, newUlid } from "@pos-cloud/common";
import type { PaymentsDeps } from "@pos-cloud/payments";
import { movableClock, openTestPayments, seedPartner, systemOperator } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Differences as the daily reconciliation records them (pos-settlements.test.ts finds them with the sandbox
// provider); here they are closed by the people who see them in the open alerts.
describe("a QR difference, resolved", () => {
  const clock = movableClock();
  let deps: PaymentsDeps;
  let merchantId: number;
  let storeId: number;
  const pspId = randomInt(1, 2_000_000_000);
  const person = (role: string, place: Partial<Caller> = {}): Caller => ({
    type: "user",
    id: randomUUID(),
    role,
    scopes: [],
    ...place,
  });
  let admin: Caller;
  const note = "refunded by hand at the counter";

  const failure = (work: Promise<unknown>) =>
    work.then(
      () => undefined,
      (error: unknown) => error as AppError,
    );
  const recordDifference = () =>
    deps.prisma.providerDifference.create({
      data: {
        id: `pdf_${newUlid(clock().getTime())}`,
        provider: "sandbox",
        business_date: "2031-03-10",
        merchant_id: merchantId,
        store_id: storeId,
        payment_intent_id: null,
        provider_transaction_id: `sbx_${randomUUID()}`,
        field: "payment",
        expected: "none",
        actual: "succeeded",
        detected_at: clock(),
      },
    });
  const audits = (id: string) =>
    deps.prisma.outboxEvent.findMany({
      where: { event_type: "audit.recorded", aggregate_id: `provider_difference:${id}` },
    });

  beforeAll(async () => {
    deps = await openTestPayments(clock);
    const seeded = await seedPartner(deps);
    merchantId = seeded.merchantId;
    storeId = seeded.store.store_id;
    await deps.prisma.merchant.update({ where: { id: merchantId }, data: { psp_id: pspId } });
    admin = person("MERCHANT_ADMIN", { pspId, merchantId });
  });
  afterAll(() => deps?.close());

  it("is resolved once, with its note, by whoever sees it counted; the open alerts stop counting it", async () => {
    const [first, second] = [await recordDifference(), await recordDifference()];
    const counted = () => deps.reconciliation.differenceCount(admin, storeId);
    expect(await counted()).toBe(2);

    const resolved = await deps.reconciliation.resolve(admin, { id: first.id, note: `${note}\n` });
    expect(resolved).toMatchObject({
      resolved_at: expect.any(Date),
      resolved_by: `user:${admin.id}`,
      resolution_note: note,
    });
    expect(await counted()).toBe(1);
    expect((await audits(first.id)).map((row) => row.payload)).toEqual([
      expect.objectContaining({
        event: "reconciliation.qr_difference_resolved",
        user_id: admin.id,
        place: { merchant_id: merchantId, store_id: storeId },
        metadata: expect.objectContaining({ provider: "sandbox", field: "payment", note }),
      }),
    ]);

    // The PSP's admin reaches the merchant too; so does a system operator.
    const pspAdmin = person("PSP_ADMIN", { pspId });
    await deps.reconciliation.resolve(pspAdmin, { id: second.id, note: "the provider corrected its record" });
    expect(await counted()).toBe(0);
    expect(await deps.reconciliation.differenceCount(systemOperator, storeId)).toBe(0);
  });

  it("refuses a second resolution naming the first, changing nothing", async () => {
    const difference = await recordDifference();
    await deps.reconciliation.resolve(admin, { id: difference.id, note });
    const first = await deps.prisma.providerDifference.findUniqueOrThrow({ where: { id: difference.id } });
    clock.advance(60_000);
    expect(
      await failure(deps.reconciliation.resolve(systemOperator, { id: difference.id, note: "again" })),
    ).toMatchObject({
      code: "invalid_state",
      details: { resolved_at: first.resolved_at?.toISOString(), resolved_by: `user:${admin.id}` },
    });
    expect(await deps.prisma.providerDifference.findUniqueOrThrow({ where: { id: difference.id } })).toEqual(first);
    expect(await audits(difference.id)).toHaveLength(1);
  });

  it("refuses a store manager, anyone out of reach, an unknown id and a bad note, changing nothing", async () => {
    const difference = await recordDifference();
    const open = await deps.reconciliation.differenceCount(admin, storeId);
    const resolve = (caller: Caller, input: object) =>
      failure(deps.reconciliation.resolve(caller, { id: difference.id, note, ...input }));
    expect(await resolve(person("STORE_MANAGER", { pspId, merchantId, storeId }), {})).toMatchObject({
      code: "forbidden",
    });
    // Out of reach: refused as reading the store's differences is.
    expect(await resolve(person("MERCHANT_ADMIN", { pspId, merchantId: merchantId + 1 }), {})).toMatchObject({
      code: "forbidden",
    });
    expect(await resolve(person("PSP_ADMIN", { pspId: pspId + 1 }), {})).toMatchObject({ code: "forbidden" });
    expect(await resolve(admin, { id: "pdf_unknown" })).toMatchObject({ code: "not_found" });
    for (const bad of ["", " \n ", "x".repeat(501), "bell\u0007"]) {
      expect(await resolve(admin, { note: bad }), JSON.stringify(bad)).toMatchObject({
        code: "invalid_request",
        details: { field: "note" },
      });
    }
    expect(await resolve(admin, { note: undefined })).toMatchObject({ details: { field: "note" } });
    expect(await deps.prisma.providerDifference.findUniqueOrThrow({ where: { id: difference.id } })).toEqual(
      difference,
    );
    expect(await audits(difference.id)).toEqual([]);
    expect(await deps.reconciliation.differenceCount(admin, storeId)).toBe(open);
  });
});
