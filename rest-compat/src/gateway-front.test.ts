import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  createGatewayFront,
  type GatewayAdmission,
  type GatewayStore,
  type GatewaySubject,
  partnerBuckets,
  subjectOf,
} from "./gateway-front";
import type { HmacVerifier } from "./hmac";
import type { Bucket, RateLimiter } from "./rate-limit";
import type { RestRoute } from "./router";

const partner = 7;
const storeA: GatewayStore = { store_id: 11, merchant_id: 1 };
const storeB: GatewayStore = { store_id: 22, merchant_id: 2 };
const intents: Record<string, GatewayStore> = { pi_a: storeA, pi_b: storeB };
/** Ledger rows by id, and the intent each is of. */
const transactions: Record<string, string> = { txn_b: "pi_b" };
const intent = (id: string): GatewaySubject => ({ kind: "intent", id });

/** A front whose every signature verifies as partner 7's, recording the buckets each admission counts. */
function front() {
  const counted: Bucket[][] = [];
  const lookups = { stores: 0, subjects: 0 };
  const hmac = {
    verify: async () => ({
      client_partner_id: partner,
      api_key_id: "key_1",
      fingerprint: randomUUID(),
      ttl_seconds: 60,
    }),
    forgetSecrets: () => undefined,
  } as unknown as HmacVerifier;
  const limiter = {
    take: async (buckets: Bucket[]) => {
      counted.push(buckets.filter((bucket) => bucket.limit !== "global"));
      return { headers: {}, exceeded: false };
    },
  } as unknown as RateLimiter;
  const gateway = createGatewayFront({
    hmac,
    limiter,
    corsOrigins: [],
    seenSignatures: { claim: async () => true },
    fetchStore: async (_, merchant_store_id) => {
      lookups.stores++;
      return merchant_store_id === "A" ? storeA : null;
    },
    fetchSubjectStore: async (_, { kind, id }) => {
      lookups.subjects++;
      return intents[kind === "intent" ? id : (transactions[id] ?? "")] ?? null;
    },
  });
  const admit = async (hints: Pick<GatewayAdmission, "storeHint" | "subject">) => {
    const request: GatewayAdmission = {
      route: { method: "POST", path: "/v1/x", auth: "hmac" } as RestRoute,
      method: "POST",
      target: "/v1/x",
      headers: {},
      ip: "192.0.2.1",
      body: { raw: Buffer.from("{}"), fields: {} },
      ...hints,
    };
    await gateway.admit(request, {});
    return counted.at(-1);
  };
  return { admit, lookups };
}

const merchantOf = (store: NonNullable<GatewayStore>): Bucket[] => [
  { limit: "merchant", key: `merchant:${store.merchant_id}` },
  { limit: "store", key: String(store.store_id) },
];
const partnerBucket: Bucket[] = [{ limit: "merchant", key: `partner:${partner}` }];

describe("the gateway front's bucket choice", () => {
  it("counts a store's merchant and store, and the partner's own bucket when there is no store", () => {
    expect(partnerBuckets(partner, storeA)).toEqual(merchantOf(storeA!));
    expect(partnerBuckets(partner, null)).toEqual(partnerBucket);
  });

  it("counts a call on an intent, or on one of its ledger rows, against the intent's merchant and store", async () => {
    const { admit } = front();
    expect(await admit({ storeHint: undefined, subject: intent("pi_a") })).toEqual(merchantOf(storeA!));
    expect(await admit({ storeHint: "A", subject: intent("pi_b") })).toEqual(merchantOf(storeB!));
    expect(await admit({ storeHint: undefined, subject: { kind: "transaction", id: "txn_b" } })).toEqual(
      merchantOf(storeB!),
    );
  });

  it("counts an unknown intent or ledger row, and a call that concerns no store, against the partner", async () => {
    const { admit } = front();
    expect(await admit({ storeHint: undefined, subject: intent("pi_unknown") })).toEqual(partnerBucket);
    expect(await admit({ storeHint: undefined, subject: { kind: "transaction", id: "txn_x" } })).toEqual(partnerBucket);
    expect(await admit({ storeHint: undefined, subject: undefined })).toEqual(partnerBucket);
    expect(await admit({ storeHint: "A", subject: undefined })).toEqual(merchantOf(storeA!));
  });

  it("asks for an intent's store once for a burst of calls on it", async () => {
    const { admit, lookups } = front();
    for (let i = 0; i < 5; i++) await admit({ storeHint: undefined, subject: intent("pi_a") });
    expect(lookups).toEqual({ stores: 0, subjects: 1 });
  });

  it("takes what a call acts on from the parameter its route names, when it could be an id at all", () => {
    const capture = { actsOn: { kind: "intent", param: "id" } } as RestRoute;
    expect(subjectOf(capture, { id: "pi_a" })).toEqual(intent("pi_a"));
    expect(subjectOf({} as RestRoute, { id: "pi_a" })).toBeUndefined();
    expect(subjectOf(capture, { id: "x".repeat(256) })).toBeUndefined();
    expect(subjectOf(capture, { id: "pi\u0000" })).toBeUndefined();
    expect(subjectOf(undefined, undefined)).toBeUndefined();
  });
});
