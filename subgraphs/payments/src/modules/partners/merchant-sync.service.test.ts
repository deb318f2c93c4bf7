import { randomInt } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";
import { intentBody, movableClock, openTestPayments, seedPartner } from "../../testing";
import { SYNC_LEASE_MS } from "./sync-lease";

const clock = movableClock();
let deps: PaymentsDeps;
/** The platform's sync partner, as the portal signs. */
let portal: Caller;
beforeAll(async () => {
  deps = await openTestPayments(clock);
  const partner = await deps.partners.createPartner("platform sync partner");
  await deps.partners.designateSyncPartner(partner.id);
  portal = { type: "partner", id: String(partner.id), scopes: [] };
});
afterAll(() => deps?.close());

const id = () => randomInt(1, 2_000_000_000);
const merchantRow = (merchantId: number) => deps.prisma.merchant.findUnique({ where: { id: merchantId } });
const storeRow = (storeId: number) => deps.prisma.store.findUnique({ where: { id: storeId } });

it("upserts both variants without duplicates and seals provider credentials", async () => {
  const caller = portal;
  const merchant = id();
  const store = id();
  const variantA = {
    merchants: [
      {
        id: merchant,
        name: "A",
        stores: [
          {
            id: store,
            name: "Store A",
            payment_processor_configs: [
              { provider: "PayPay", is_active: true, credentials: { merchant_id: "m1", api_secret: "s3cret-a" } },
            ],
          },
        ],
      },
    ],
  };
  expect(await deps.merchantSync.syncMerchants(caller, variantA)).toEqual({ synced_merchants: 1, synced_stores: 1 });
  const variantB = {
    client_partner_id: Number(caller.id),
    merchants: [
      {
        merchant_id: merchant,
        merchant_code: "M-B",
        stores: [
          {
            store_id: store,
            store_code: "B01",
            provider_configs: [{ provider_code: "paypay", credentials: { api_secret: "s3cret-b" }, is_active: false }],
          },
        ],
      },
    ],
  };
  expect(await deps.merchantSync.syncMerchants(caller, variantB)).toEqual({ synced_merchants: 1, synced_stores: 1 });
  expect(await deps.prisma.store.findMany({ where: { id: store } })).toEqual([
    expect.objectContaining({ merchant_id: merchant, store_code: "B01", name: "Store A" }),
  ]);
  const configs = await deps.prisma.providerConfig.findMany({ where: { store_id: store } });
  expect(configs).toEqual([expect.objectContaining({ provider_code: "paypay", is_active: false })]);
  expect(JSON.stringify(configs)).not.toContain("s3cret");
});

it("refuses another partner's merchant and a foreign client_partner_id, changing nothing", async () => {
  const mine = await seedPartner(deps);
  const theirs = await seedPartner(deps);
  const attempt = { merchants: [{ merchant_id: theirs.merchantId, merchant_code: "stolen", stores: [] }] };
  await expect(deps.merchantSync.syncMerchants(mine.caller, attempt)).rejects.toMatchObject({ code: "forbidden" });
  expect((await deps.prisma.merchant.findUnique({ where: { id: theirs.merchantId } }))?.merchant_code).toBeNull();
  await expect(
    deps.merchantSync.syncMerchants(mine.caller, { client_partner_id: Number(theirs.caller.id), merchants: [] }),
  ).rejects.toMatchObject({ code: "forbidden" });
});

it("keeps a store synced inactive from new intents until it is synced active again", async () => {
  const { caller, merchantId, store } = await seedPartner(deps);
  const syncStore = (is_active?: boolean) =>
    deps.merchantSync.syncMerchants(caller, {
      merchants: [{ merchant_id: merchantId, stores: [{ ...store, is_active }] }],
    });
  const create = () => deps.paymentIntents.create(caller, intentBody({ merchant_store_id: store.store_code }));
  await syncStore(false);
  await expect(create()).rejects.toMatchObject({
    code: "invalid_request",
    message: "this store is inactive",
    details: { field: "merchant_store_id", constraint: "active_store" },
  });
  // A partner that does not send the flag (the spec's variants) leaves it as it was.
  await syncStore(undefined);
  await expect(create()).rejects.toMatchObject({ details: { constraint: "active_store" } });
  await syncStore(true);
  expect((await create()).payment_intent.status).toBe("requires_payment_method");
  await expect(
    deps.merchantSync.syncMerchants(caller, {
      merchants: [{ merchant_id: merchantId, stores: [{ ...store, is_active: "no" }] }],
    }),
  ).rejects.toMatchObject({ details: { field: "merchants.0.stores.0.is_active" } });
});

it("lets only the sync partner create merchant and store ids, so no partner can claim the portal's ahead of it", async () => {
  const squatter = await seedPartner(deps);
  const merchant = id();
  const store = id();
  const claim = { merchants: [{ merchant_id: merchant, stores: [{ store_id: store, store_code: "NEXT" }] }] };
  const notYours = (kind: string, of: number) => ({
    code: "forbidden",
    message: `${kind} ${of} is not one of yours: only the platform's sync partner creates merchant and store ids`,
    details: { field: `${kind}_id`, id: of },
  });
  await expect(deps.merchantSync.syncMerchants(squatter.caller, claim)).rejects.toMatchObject(
    notYours("merchant", merchant),
  );
  // A new store is an id too, even under a merchant the partner holds.
  const intoOwn = { merchants: [{ merchant_id: squatter.merchantId, stores: [{ store_id: store }] }] };
  await expect(deps.merchantSync.syncMerchants(squatter.caller, intoOwn)).rejects.toMatchObject(
    notYours("store", store),
  );
  expect(await merchantRow(merchant)).toBeNull();
  expect(await storeRow(store)).toBeNull();

  expect(await deps.merchantSync.syncMerchants(portal, claim)).toEqual({ synced_merchants: 1, synced_stores: 1 });
  expect(await storeRow(store)).toMatchObject({ merchant_id: merchant, store_code: "NEXT" });
  // Held now, the id gets the same answer as before: a partner cannot tell which ids exist.
  await expect(deps.merchantSync.syncMerchants(squatter.caller, claim)).rejects.toMatchObject(
    notYours("merchant", merchant),
  );
});

it("keeps the sync partner and a granted partner out of each other's merchants and stores", async () => {
  const granted = await seedPartner(deps);
  const own = { merchant_id: id(), stores: [{ store_id: id(), store_code: "OWN" }] };
  await deps.merchantSync.syncMerchants(portal, { merchants: [own] });
  const ownStore = own.stores[0]!.store_id;

  const deactivateOwn = {
    merchants: [{ merchant_id: granted.merchantId, stores: [{ store_id: ownStore, is_active: false }] }],
  };
  await expect(deps.merchantSync.syncMerchants(granted.caller, deactivateOwn)).rejects.toMatchObject({
    code: "forbidden",
    details: { field: "store_id", id: ownStore },
  });
  const takeMerchant = { merchants: [{ merchant_id: granted.merchantId, merchant_code: "taken", stores: [] }] };
  await expect(deps.merchantSync.syncMerchants(portal, takeMerchant)).rejects.toMatchObject({
    code: "forbidden",
    message: `merchant ${granted.merchantId} is held by another client partner`,
  });
  const deactivateGranted = { merchants: [{ ...own, stores: [{ ...granted.store, is_active: false }] }] };
  await expect(deps.merchantSync.syncMerchants(portal, deactivateGranted)).rejects.toMatchObject({
    code: "forbidden",
    message: `store ${granted.store.store_id} is held by another client partner`,
  });

  expect(await storeRow(ownStore)).toMatchObject({ merchant_id: own.merchant_id, is_active: true });
  expect(await storeRow(granted.store.store_id)).toMatchObject({ merchant_id: granted.merchantId, is_active: true });
  expect((await merchantRow(granted.merchantId))?.merchant_code).toBeNull();
});

it("leases the sync partner's stores: an hour after its last sync a store takes no new intents, until synced again", async () => {
  const store = { store_id: id(), store_code: `L${id()}` };
  const sync = () => deps.merchantSync.syncMerchants(portal, { merchants: [{ merchant_id: id(), stores: [store] }] });
  const create = () => deps.paymentIntents.create(portal, intentBody({ merchant_store_id: store.store_code }));
  await sync();
  expect((await create()).payment_intent.status).toBe("requires_payment_method");
  clock.advance(SYNC_LEASE_MS);
  try {
    await expect(create()).rejects.toMatchObject({
      code: "invalid_request",
      details: { field: "merchant_store_id", constraint: "synced_store" },
    });
    await sync();
    expect((await create()).payment_intent.status).toBe("requires_payment_method");
  } finally {
    clock.advance(-SYNC_LEASE_MS);
  }
});

it("has one sync partner at a time, and designates only a partner that exists", async () => {
  const next = await deps.partners.createPartner("next sync partner");
  const nextCaller: Caller = { type: "partner", id: String(next.id), scopes: [] };
  const fresh = () => ({ merchants: [{ merchant_id: id(), stores: [] }] });
  await deps.partners.designateSyncPartner(next.id);
  try {
    await expect(deps.merchantSync.syncMerchants(portal, fresh())).rejects.toMatchObject({ code: "forbidden" });
    expect(await deps.merchantSync.syncMerchants(nextCaller, fresh())).toEqual({
      synced_merchants: 1,
      synced_stores: 0,
    });
  } finally {
    await deps.partners.designateSyncPartner(Number(portal.id));
  }
  await expect(deps.partners.designateSyncPartner(2_000_000_000)).rejects.toMatchObject({ code: "not_found" });
});
