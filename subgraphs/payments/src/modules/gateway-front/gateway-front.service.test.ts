import { randomBytes } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { intentBody, movableClock, openTestPayments, seedPartner } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";

const edge: Caller = { type: "service", id: "edge", scopes: [] };
const clock = movableClock();
let deps: PaymentsDeps;
beforeAll(async () => {
  deps = await openTestPayments(clock);
});
afterAll(() => deps?.close());

const signature = () => randomBytes(32).toString("hex");

it("claims a signature once, whichever of many concurrent claims wins", async () => {
  const seen = signature();
  const claims = await Promise.all(Array.from({ length: 20 }, () => deps.gatewayFront.claimSignature(edge, seen, 300)));
  expect(claims.filter(Boolean)).toHaveLength(1);
  expect(await deps.gatewayFront.claimSignature(edge, seen, 300)).toBe(false);
  expect(await deps.gatewayFront.claimSignature(edge, signature(), 300)).toBe(true);
});

it("deletes expired signatures, at most once a minute", async () => {
  const old = signature();
  await deps.gatewayFront.claimSignature(edge, old, 1);
  clock.advance(61_000);
  try {
    await deps.gatewayFront.claimSignature(edge, signature(), 300);
    expect(await deps.prisma.seenSignature.count({ where: { signature: old } })).toBe(0);
  } finally {
    clock.advance(-61_000);
  }
});

it("answers the edge only, and bounds what it keeps", async () => {
  for (const caller of [
    { type: "partner", id: "1", scopes: [] },
    { type: "anonymous", scopes: [] },
  ] satisfies Caller[]) {
    await expect(deps.gatewayFront.claimSignature(caller, signature(), 300)).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(deps.gatewayFront.storeFor(caller, 1, "S1")).rejects.toMatchObject({ code: "forbidden" });
    await expect(deps.gatewayFront.intentStoreFor(caller, 1, "pi_x")).rejects.toMatchObject({ code: "forbidden" });
    await expect(deps.gatewayFront.transactionStoreFor(caller, 1, "txn_x")).rejects.toMatchObject({
      code: "forbidden",
    });
  }
  await expect(deps.gatewayFront.claimSignature(edge, signature(), 24 * 60 * 60)).rejects.toMatchObject({
    details: { field: "ttl_seconds" },
  });
  await expect(deps.gatewayFront.claimSignature(edge, "x".repeat(129), 300)).rejects.toMatchObject({
    details: { field: "signature" },
  });
});

it("finds the store a request is for by code or id, and its merchant", async () => {
  const { partner, merchantId, store } = await seedPartner(deps);
  const expected = { store_id: store.store_id, merchant_id: merchantId };
  expect(await deps.gatewayFront.storeFor(edge, partner.id, store.store_code)).toEqual(expected);
  expect(await deps.gatewayFront.storeFor(edge, partner.id, String(store.store_id))).toEqual(expected);
  // A partner with one store means it when it names none, as create does.
  expect(await deps.gatewayFront.storeFor(edge, partner.id, null)).toEqual(expected);
  expect(await deps.gatewayFront.storeFor(edge, partner.id, "no-such-store")).toBeNull();
  const other = await seedPartner(deps);
  expect(await deps.gatewayFront.storeFor(edge, other.partner.id, store.store_code)).toBeNull();
  expect(await deps.gatewayFront.storeFor(edge, other.partner.id, String(store.store_id))).toBeNull();
});

it("finds the store and merchant of a partner's intent or ledger row, and none for an unknown or another's", async () => {
  const { partner, caller, merchantId, store } = await seedPartner(deps);
  const { payment_intent } = await deps.paymentIntents.create(caller, intentBody({ payment_method_types: ["cash"] }));
  const row = await deps.prisma.ledgerTransaction.findFirstOrThrow({ where: { payment_intent_id: payment_intent.id } });
  const expected = { store_id: store.store_id, merchant_id: merchantId };
  expect(await deps.gatewayFront.intentStoreFor(edge, partner.id, payment_intent.id)).toEqual(expected);
  expect(await deps.gatewayFront.transactionStoreFor(edge, partner.id, row.id)).toEqual(expected);
  expect(await deps.gatewayFront.intentStoreFor(edge, partner.id, "pi_unknown")).toBeNull();
  expect(await deps.gatewayFront.transactionStoreFor(edge, partner.id, "txn_unknown")).toBeNull();
  const other = await seedPartner(deps);
  expect(await deps.gatewayFront.intentStoreFor(edge, other.partner.id, payment_intent.id)).toBeNull();
  expect(await deps.gatewayFront.transactionStoreFor(edge, other.partner.id, row.id)).toBeNull();
});
