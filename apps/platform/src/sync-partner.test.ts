import type { PaymentsDeps } from "@pos-cloud/payments";
import { movableClock, openIsolatedPayments } from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensurePlatformKeys, PORTAL_SYNC_CLIENT_ID, POS_PAYMENTS_CLIENT_ID } from "./sync-partner";

const clock = movableClock();
const edge = { type: "service" as const, id: "edge", scopes: [] };
let deps: PaymentsDeps;
beforeAll(async () => {
  deps = await openIsolatedPayments(clock);
});
afterAll(() => deps?.close());

const keysOf = async (clientId: string) => (await deps.partners.credentialsFor(edge, clientId))?.keys ?? [];

it("upgrades an install that holds only the old all-purpose key: POS gets its own, the old one works until it expires", async () => {
  const partner = await deps.partners.createPartner("Platform POS partner");
  const old = await deps.partners.issueApiKey(partner.id, { client_id: PORTAL_SYNC_CLIENT_ID });

  const keys = await ensurePlatformKeys(deps.partners, clock());

  expect(keys.pos).toMatchObject({ clientId: POS_PAYMENTS_CLIENT_ID, clientPartnerId: partner.id });
  expect(await keysOf(POS_PAYMENTS_CLIENT_ID)).toEqual([
    expect.objectContaining({ permissions: ["payment_intents:write", "payment_intents:read", "refunds:write"] }),
  ]);
  expect(keys.sync).toMatchObject({ clientId: PORTAL_SYNC_CLIENT_ID, clientPartnerId: partner.id });
  expect(keys.sync.secret).not.toBe(old.secret);
  expect(await keysOf(PORTAL_SYNC_CLIENT_ID)).toEqual([
    expect.objectContaining({ secret: keys.sync.secret, permissions: ["sync:write"], revoked: false }),
    expect.objectContaining({ secret: old.secret, permissions: [], revoked: false, expires_at: old.expires_at }),
  ]);

  // The next start finds both keys as they should be and issues nothing.
  expect(await ensurePlatformKeys(deps.partners, clock())).toEqual(keys);
  expect(await keysOf(PORTAL_SYNC_CLIENT_ID)).toHaveLength(2);
  expect(await keysOf(POS_PAYMENTS_CLIENT_ID)).toHaveLength(1);
});
