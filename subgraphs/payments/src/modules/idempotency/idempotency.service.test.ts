import { randomBytes, randomUUID } from "node:crypto";
import { idempotencyRequest, secretBox } from "@pos-cloud/common";
import { type PreparedSql, preparedSql, type SqlStatement } from "@pos-cloud/common/storage";
import { intentBody, movableClock, openTestPayments, seedPartner } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";
import { idempotencyRepository } from "./idempotency.repository";
import { idempotencyService } from "./idempotency.service";

const clock = movableClock();
let deps: PaymentsDeps;
beforeAll(async () => {
  deps = await openTestPayments(clock);
});
afterAll(() => deps?.close());

const request = (key = randomUUID(), request_hash = "hash-a") => ({ key, request_hash });

it("creates exactly one intent for 50 concurrent requests with one key", async () => {
  const { caller, partner } = await seedPartner(deps);
  const body = intentBody();
  const key = request();
  const outcomes = await Promise.allSettled(
    Array.from({ length: 50 }, () => deps.paymentIntents.create(caller, body, key)),
  );
  const ids = new Set(
    outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value.payment_intent.id] : [])),
  );
  expect(ids.size).toBe(1);
  for (const outcome of outcomes) {
    if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "idempotency_conflict" });
  }
  expect(await deps.prisma.paymentIntent.count({ where: { client_partner_id: partner.id } })).toBe(1);
});

it("replays the first response, token included, and refuses another request with the key", async () => {
  const { caller } = await seedPartner(deps);
  const body = intentBody();
  const key = request();
  const first = await deps.paymentIntents.create(caller, body, key);
  const again = await deps.paymentIntents.create(caller, body, key);
  expect(first.replayed).toBe(false);
  expect(again.replayed).toBe(true);
  expect(JSON.parse(JSON.stringify(again))).toEqual({ ...JSON.parse(JSON.stringify(first)), replayed: true });
  await expect(deps.paymentIntents.create(caller, body, { ...key, request_hash: "hash-b" })).rejects.toMatchObject({
    code: "idempotency_conflict",
  });
});

it("answers a request whose key is still in flight with a conflict", async () => {
  const { caller, partner } = await seedPartner(deps);
  const key = request();
  const service = idempotencyService(
    idempotencyRepository(deps.prisma, preparedSql(deps.db)),
    secretBox(randomBytes(32)),
    clock,
  );
  let started!: () => void;
  let release!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const first = service.run(partner.id, key, async () => {
    started();
    await held;
    return { done: true };
  });
  await running;
  await expect(deps.paymentIntents.create(caller, intentBody(), key)).rejects.toMatchObject({
    code: "idempotency_conflict",
  });
  release();
  expect(await first).toEqual({ done: true, replayed: false });
});

it("ignores a key after 24 hours and frees a key whose request failed", async () => {
  const { caller } = await seedPartner(deps);
  const key = request();
  const first = await deps.paymentIntents.create(caller, intentBody(), key);
  clock.advance(24 * 60 * 60 * 1000 + 1000);
  try {
    const later = await deps.paymentIntents.create(caller, intentBody(), { ...key, request_hash: "other" });
    expect(later.payment_intent.id).not.toBe(first.payment_intent.id);
  } finally {
    clock.advance(-(24 * 60 * 60 * 1000 + 1000));
  }
  const failing = request();
  await expect(deps.paymentIntents.create(caller, intentBody({ amount: 0 }), failing)).rejects.toMatchObject({
    code: "invalid_request",
  });
  const retried = await deps.paymentIntents.create(caller, intentBody(), { ...failing, request_hash: "fixed" });
  expect(retried.replayed).toBe(false);
});

it("takes over a claim abandoned in progress (its process died, or the database went away) after a minute", async () => {
  const { caller, partner } = await seedPartner(deps);
  const key = request();
  const now = clock();
  // Claimed by a request that could neither complete nor free the key.
  await idempotencyRepository(deps.prisma, preparedSql(deps.db)).claim({
    client_partner_id: partner.id,
    idempotency_key: key.key,
    request_hash: key.request_hash,
    now,
    expires_at: new Date(now.getTime() + 24 * 60 * 60 * 1000),
    abandoned_before: now,
  });
  await expect(deps.paymentIntents.create(caller, intentBody(), key)).rejects.toMatchObject({
    code: "idempotency_conflict",
  });
  clock.advance(61_000);
  try {
    const retried = await deps.paymentIntents.create(caller, intentBody(), key);
    expect(retried.replayed).toBe(false);
    expect(await deps.paymentIntents.create(caller, intentBody(), key)).toMatchObject({
      payment_intent: { id: retried.payment_intent.id },
      replayed: true,
    });
  } finally {
    clock.advance(-61_000);
  }
});

it("commits a claim without waiting for the disk, and only the claim", async () => {
  const { partner } = await seedPartner(deps);
  const returned: unknown[] = [];
  const watched: PreparedSql = async <Row>(statement: SqlStatement) => {
    const rows = await preparedSql(deps.db)<Row>(statement);
    returned.push(...rows);
    return rows;
  };
  const now = clock();
  const id = await idempotencyRepository(deps.prisma, watched).claim({
    client_partner_id: partner.id,
    idempotency_key: randomUUID(),
    request_hash: "hash-a",
    now,
    expires_at: new Date(now.getTime() + 60_000),
    abandoned_before: now,
  });
  expect(returned).toEqual([{ id, synchronous_commit: "off" }]);
  // The setting was local to the claim's transaction: the connection's next commit waits for the disk again.
  expect(await deps.db.query("SHOW synchronous_commit")).toEqual([{ synchronous_commit: "on" }]);
});

it("fingerprints the operation and its parameters, whatever their order, not their bytes", () => {
  const hash = (operation: string, parameters: Record<string, unknown>) =>
    idempotencyRequest("k", operation, parameters)?.request_hash;
  const input = { amount: 100, currency: "JPY", metadata: { a: 1, b: [1, { y: 2, x: 1 }] }, note: null };
  const reordered = { note: undefined, metadata: { b: [1, { x: 1, y: 2 }], a: 1 }, currency: "JPY", amount: 100 };
  expect(hash("createPaymentIntent", { input })).toBe(hash("createPaymentIntent", { input: reordered }));
  expect(hash("createPaymentIntent", { input })).not.toBe(
    hash("createPaymentIntent", { input: { ...input, amount: 101 } }),
  );
  // Array order is meaning, not serialisation.
  const swapped = { ...input, metadata: { a: 1, b: [{ y: 2, x: 1 }, 1] } };
  expect(hash("createPaymentIntent", { input })).not.toBe(hash("createPaymentIntent", { input: swapped }));
  expect(hash("createPaymentIntent", { input })).not.toBe(hash("refundPaymentIntent", { input }));
  expect(idempotencyRequest(null, "createPaymentIntent", { input })).toBeNull();
});
