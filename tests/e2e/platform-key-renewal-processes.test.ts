import { randomUUID } from "node:crypto";
import { type Caller, signScheme1 } from "@pos-cloud/common";
import { openPos, type PosDeps } from "@pos-cloud/pos";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadOrCreateMasterKey } from "../../apps/platform/src/master-key";
import { POS_PAYMENTS_CLIENT_ID } from "../../apps/platform/src/sync-partner";
import { clusterWiring, onPostgres } from "../support/environment";
import { movableClock } from "../support/payments";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

// Issue 32: in a cluster every POS subgraph process took the platform's sync key from its environment at start and
// kept it, so once the renewal job had replaced that key and it expired, their payments failed until a restart. Here
// a second POS service on the platform's POS database stands for such a process (PostgreSQL only: two processes
// cannot share an embedded database), and the clock both share is moved, as the cluster's processes cannot be.
const clock = movableClock();
const DAY_MS = 24 * 60 * 60 * 1000;
const service: Caller = { type: "service", id: "test", scopes: [] };
let platform: TestPlatform;
let store: SeededStore;
let other: PosDeps;
beforeAll(async () => {
  if (!onPostgres || clusterWiring) return;
  platform = await startTestPlatform({ clock, demo: false });
  store = await seed(platform).store({ sells: true });
  // Started as cluster.ts starts a POS subgraph process: the gateway and POS's key of the moment, from its environment.
  const [key] = await posKeys();
  other = await openPos({
    url: platform.config.databaseUrls.pos,
    gateway: { url: platform.baseUrl, clientId: POS_PAYMENTS_CLIENT_ID, secret: key!.secret },
    masterKey: loadOrCreateMasterKey(platform.dataDir, platform.config.masterKey),
    portal: () => Promise.reject(new Error("not asked in this test")),
    clock,
  });
});
afterAll(async () => {
  await other?.close();
  await platform?.close();
});

const posKeys = async () => (await platform.partners.credentialsFor(service, POS_PAYMENTS_CLIENT_ID))!.keys;
/** Moves the clock and syncs, so that the gateway's one-hour lease on the store still lets it take payments. */
async function moveTo(at: number) {
  clock.advance(at - clock().getTime());
  await platform.jobs!.trigger("gateway-sync");
}

/** A cash intent at the gateway for the store, as a POS payment makes one; answers the secrets that signed it. */
async function payThrough(pos: PosDeps, secrets: string[]) {
  const fetches = vi.spyOn(globalThis, "fetch");
  try {
    const payment = randomUUID();
    const intent = await pos.gateway.createIntent(
      {
        amount: 1200,
        currency: "JPY",
        payment_method_types: ["cash"],
        processing_mode: "manual",
        merchant_ref_id: `pos-${payment}`,
        merchant_store_id: String(store.id),
        description: `POS payment ${payment}`,
      },
      `pos-payment-${payment}`,
    );
    expect(intent.id).toBeTruthy();
    // Only this call's requests: the platform's own jobs may fetch meanwhile.
    return fetches.mock.calls
      .filter(([url]) => String(url).endsWith("/v1/payment_intents"))
      .map(([, init]) => signerOf(init!, secrets));
  } finally {
    fetches.mockRestore();
  }
}

/** Which of `secrets` signed a /v1 call (scheme 1 over method, path, timestamp and body). */
function signerOf(init: RequestInit, secrets: string[]) {
  const [, timestamp, signature] = String((init.headers as Record<string, string>).authorization).split(":");
  const body = String(init.body ?? "");
  return secrets.find(
    (secret) => signScheme1(secret, "POST", "/v1/payment_intents", Number(timestamp), body) === signature,
  );
}

describe.skipIf(!onPostgres || clusterWiring)("a renewed POS key in another POS process", () => {
  it("is signed with once that process's minute of cache is over, and its payments go on past the old key's expiry", async () => {
    const [first] = await posKeys();
    const expiresAt = first!.expires_at.getTime();
    await moveTo(expiresAt - 29 * DAY_MS);
    expect(await payThrough(other, [first!.secret])).toEqual([first!.secret]);

    await platform.jobs!.trigger("platform-key-renewal");
    const [renewed] = await posKeys();
    expect(renewed!.secret).not.toBe(first!.secret);
    const secrets = [first!.secret, renewed!.secret];
    // Within the minute it read the old key: still valid for 29 days, so it signs with it.
    expect(await payThrough(other, secrets)).toEqual([first!.secret]);

    await moveTo(clock().getTime() + 61_000);
    expect(await payThrough(other, secrets)).toEqual([renewed!.secret]);

    await moveTo(expiresAt + 60_000);
    expect(await payThrough(other, secrets)).toEqual([renewed!.secret]);
    expect(await payThrough(platform.pos, secrets)).toEqual([renewed!.secret]);
  });
});
