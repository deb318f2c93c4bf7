import type { Caller } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { PORTAL_SYNC_CLIENT_ID, POS_PAYMENTS_CLIENT_ID } from "../../apps/platform/src/sync-partner";
import { loggedDuring } from "../support/log";
import { movableClock } from "../support/payments";
import { inProcessOnly, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

// Issue 32: about 180 days after install every store stopped taking payments, because the platform's own sync key was
// never renewed. In-process only: the test moves the platform's clock (forward only) and runs its jobs by name.
const clock = movableClock();
const DAY_MS = 24 * 60 * 60 * 1000;
const service: Caller = { type: "service", id: "test", scopes: [] };
let platform: TestPlatform;
let store: SeededStore;
beforeAll(async () => {
  platform = await startTestPlatform({ clock, demo: false });
  store = await seed(platform).store({ sells: true });
  // A second client_id of the platform's own partner, as demo.json's key is: the case the renewal once failed on
  // (the partner's limit answered 409, and the start carried on with the old key, silently).
  await seed(platform).storePartner(store);
});
afterAll(() => platform?.close());

const keysOf = async (clientId: string) => (await platform.partners.credentialsFor(service, clientId))!.keys;
const syncKeys = () => keysOf(PORTAL_SYNC_CLIENT_ID);
const posKeys = () => keysOf(POS_PAYMENTS_CLIENT_ID);
const run = (job: string) => platform.jobs!.trigger(job);
const moveTo = (at: number) => clock.advance(at - clock().getTime());
const metric = async (pattern: RegExp) =>
  Number(pattern.exec(await (await fetch(`${platform.adminUrl}/metrics`)).text())?.[1]);
/** Renewals of a client_id so far: the registry is the process's, and other files' platforms in it count there too. */
const renewals = async (clientId: string, outcome: "renewed" | "failed" = "renewed") =>
  (await metric(
    new RegExp(`^platform_api_key_renewals_total\\{client_id="${clientId}",outcome="${outcome}"\\} (\\d+)$`, "m"),
  )) || 0;

/** The gateway's lease on the store, which a sync renews; intents are refused (`synced_store`) once it runs out. */
async function syncStillWorks() {
  await run("gateway-sync");
  const row = await platform.payments.prisma.store.findUnique({ where: { id: store.id } });
  expect(row?.synced_until?.getTime()).toBeGreaterThan(clock().getTime());
}

describe("the platform's own keys", () => {
  inProcessOnly(
    "are renewed by a job 30 days before they expire, and the sync goes on past the old key's expiry",
    async () => {
      const [first] = await syncKeys();
      const [firstPos] = await posKeys();
      const expiresAt = first!.expires_at.getTime();
      await syncStillWorks();

      moveTo(expiresAt - 31 * DAY_MS);
      await run("platform-key-renewal");
      expect(await syncKeys()).toHaveLength(1);
      expect(await posKeys()).toHaveLength(1);

      moveTo(expiresAt - 29 * DAY_MS);
      const renewedFrom = clock().getTime();
      const renewedBefore = {
        sync: await renewals(PORTAL_SYNC_CLIENT_ID),
        pos: await renewals(POS_PAYMENTS_CLIENT_ID),
      };
      const logged = await loggedDuring(() => run("platform-key-renewal"));
      const keys = await syncKeys();
      expect(keys).toHaveLength(2);
      expect(keys[0]!.expires_at.getTime() - 180 * DAY_MS).toBeGreaterThanOrEqual(renewedFrom);
      // The old secret keeps its expiry: a process that still holds it goes on until then.
      expect(keys[1]!.expires_at.getTime()).toBe(expiresAt);
      // POS's key is renewed beside it, keeping what it may do.
      const pos = await posKeys();
      expect(pos.map((key) => key.id)).toEqual([expect.any(String), firstPos!.id]);
      expect(pos[0]!.permissions).toEqual(["payment_intents:write", "payment_intents:read", "refunds:write"]);
      expect(keys[0]!.permissions).toEqual(["sync:write"]);
      expect(await renewals(POS_PAYMENTS_CLIENT_ID)).toBe(renewedBefore.pos + 1);
      expect(logged).toContain("the platform's API key was renewed");
      expect(await renewals(PORTAL_SYNC_CLIENT_ID)).toBe(renewedBefore.sync + 1);
      expect(
        await metric(/^platform_api_key_expiry_timestamp_seconds\{client_id="portal-gateway-sync"\} (\d+)$/m),
      ).toBe(Math.floor(keys[0]!.expires_at.getTime() / 1000));
      await syncStillWorks();

      moveTo(expiresAt + 60_000);
      await syncStillWorks();
      await run("platform-key-renewal");
      expect(await syncKeys()).toHaveLength(2);

      // On the audit trail: the payments subgraph's record reaches the portal's log through the outbox.
      await expect
        .poll(async () => {
          const rows = await platform.portal.db.query<{ target_id: string }>(
            "SELECT target_id FROM audit_log WHERE event = 'api_key.renewed'",
          );
          return rows.map((row) => row.target_id).sort();
        })
        .toEqual([keys[0]!.id, pos[0]!.id].sort());
    },
  );

  inProcessOnly(
    "logs, counts and alerts on a renewal the gateway refuses, and keeps signing with the key it has",
    async () => {
      // The client_id is given a second usable secret, so the next renewal meets the limit of two: a refusal.
      const [current] = await syncKeys();
      const partnerId = (await platform.partners.credentialsFor(service, PORTAL_SYNC_CLIENT_ID))!.client_partner_id;
      const extra = await platform.partners.issueApiKey(partnerId, { client_id: PORTAL_SYNC_CLIENT_ID });
      moveTo(extra.expires_at.getTime() - 29 * DAY_MS - 12 * 60 * 60 * 1000);
      expect(current!.expires_at.getTime()).toBeGreaterThan(clock().getTime());

      const failedBefore = await renewals(PORTAL_SYNC_CLIENT_ID, "failed");
      const logged = await loggedDuring(() => run("platform-key-renewal"));
      expect(logged).toContain('"alert":"platform_api_key_renewal_failed"');
      expect(await renewals(PORTAL_SYNC_CLIENT_ID, "failed")).toBe(failedBefore + 1);
      expect(await syncKeys()).toHaveLength(3);
      // The refusal of one key's renewal leaves the other's to go on.
      expect(await posKeys()).toHaveLength(3);
      await syncStillWorks();
    },
  );
});
