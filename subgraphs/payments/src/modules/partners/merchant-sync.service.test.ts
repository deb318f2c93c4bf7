import { randomInt } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { idempotencyRequest } from "@pos-cloud/common";
import {
  intentBody,
  movableClock,
  openTestPayments,
  seedPartner,
  systemOperator,
} from "@pos-cloud/test-support/payments";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";
import { SYNC_LEASE_MS } from "./sync-lease.rules";

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
  expect(await deps.merchantSync.syncMerchants(caller, variantA)).toEqual({
    synced_merchants: 1,
    synced_stores: 1,
    replayed: false,
  });
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
  expect(await deps.merchantSync.syncMerchants(caller, variantB)).toEqual({
    synced_merchants: 1,
    synced_stores: 1,
    replayed: false,
  });
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
    message: `${kind} ${of} is not one of yours: it is not granted to you`,
    details: { field: `${kind}_id`, id: of },
  });
  await expect(deps.merchantSync.syncMerchants(squatter.caller, claim)).rejects.toMatchObject(
    notYours("merchant", merchant),
  );
  // A new store is an id too, even under a merchant granted to the partner.
  const intoOwn = { merchants: [{ merchant_id: squatter.merchantId, stores: [{ store_id: store }] }] };
  await expect(deps.merchantSync.syncMerchants(squatter.caller, intoOwn)).rejects.toMatchObject(
    notYours("store", store),
  );
  expect(await merchantRow(merchant)).toBeNull();
  expect(await storeRow(store)).toBeNull();

  expect(await deps.merchantSync.syncMerchants(portal, claim)).toEqual({
    synced_merchants: 1,
    synced_stores: 1,
    replayed: false,
  });
  expect(await storeRow(store)).toMatchObject({ merchant_id: merchant, store_code: "NEXT" });
  // Held now, the id gets the same answer as before: a partner cannot tell which ids exist.
  await expect(deps.merchantSync.syncMerchants(squatter.caller, claim)).rejects.toMatchObject(
    notYours("merchant", merchant),
  );
});

it("lets a partner sync only inside its live grants, and the sync partner every merchant", async () => {
  const granted = await seedPartner(deps);
  const own = { merchant_id: id(), stores: [{ store_id: id(), store_code: "OWN" }, { store_id: id() }] };
  await deps.merchantSync.syncMerchants(portal, { merchants: [own] });
  const [ownStore, otherStore] = own.stores.map((store) => store.store_id) as [number, number];

  // A store of another merchant, moved under the partner's: refused as an id outside its grants.
  const intoGranted = {
    merchants: [{ merchant_id: granted.merchantId, stores: [{ store_id: ownStore, is_active: false }] }],
  };
  await expect(deps.merchantSync.syncMerchants(granted.caller, intoGranted)).rejects.toMatchObject({
    code: "forbidden",
    details: { field: "store_id", id: ownStore },
  });
  // A grant of one store: that store may be synced, not the merchant's fields nor its other stores.
  const [storeGrant] = (
    await deps.grants.grant(systemOperator, granted.partner.id, { merchant_id: own.merchant_id, store_ids: [ownStore] })
  ).grants;
  const sync = (stores: object[], fields: object = {}) =>
    deps.merchantSync.syncMerchants(granted.caller, {
      merchants: [{ merchant_id: own.merchant_id, ...fields, stores }],
    });
  expect(await sync([{ store_id: ownStore, name: "Granted" }])).toMatchObject({ synced_stores: 1 });
  await expect(sync([], { name: "Taken" })).rejects.toMatchObject({ details: { field: "merchant_id" } });
  await expect(sync([{ store_id: otherStore, is_active: false }])).rejects.toMatchObject({
    details: { field: "store_id", id: otherStore },
  });
  await deps.grants.revoke(systemOperator, granted.partner.id, storeGrant!.id);
  await expect(sync([{ store_id: ownStore, is_active: false }])).rejects.toMatchObject({
    details: { field: "merchant_id", id: own.merchant_id },
  });

  // The sync partner reaches every merchant, a granted one too.
  const resync = { merchants: [{ merchant_id: granted.merchantId, stores: [granted.store] }] };
  expect(await deps.merchantSync.syncMerchants(portal, resync)).toMatchObject({ synced_stores: 1 });
  expect(await storeRow(ownStore)).toMatchObject({ merchant_id: own.merchant_id, name: "Granted", is_active: true });
  expect(await storeRow(otherStore)).toMatchObject({ is_active: true });
  expect((await merchantRow(own.merchant_id))?.name).toBeNull();
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
      replayed: false,
    });
  } finally {
    await deps.partners.designateSyncPartner(Number(portal.id));
  }
  await expect(deps.partners.designateSyncPartner(2_000_000_000)).rejects.toMatchObject({ code: "not_found" });
});

it("runs a sync with an Idempotency-Key once: the same sync again gets the first answer, another is a conflict", async () => {
  const merchant = id();
  const input = { merchants: [{ merchant_id: merchant, merchant_code: "IDEM", stores: [{ store_id: id() }] }] };
  const key = `portal-sync-${id()}`;
  const request = (body: unknown) => idempotencyRequest(key, "syncMerchants", { input: body });
  const first = await deps.merchantSync.syncMerchants(portal, input, request(input));
  expect(first).toEqual({ synced_merchants: 1, synced_stores: 1, replayed: false });
  const renamed = { merchants: [{ ...input.merchants[0]!, merchant_code: "RENAMED" }] };
  await deps.prisma.merchant.update({ where: { id: merchant }, data: { merchant_code: "CHANGED MEANWHILE" } });
  expect(await deps.merchantSync.syncMerchants(portal, input, request(input))).toEqual({ ...first, replayed: true });
  // The stored answer changed nothing: the row keeps what was written after the first sync.
  expect(await merchantRow(merchant)).toMatchObject({ merchant_code: "CHANGED MEANWHILE" });
  await expect(deps.merchantSync.syncMerchants(portal, renamed, request(renamed))).rejects.toMatchObject({
    code: "idempotency_conflict",
  });
  expect(await merchantRow(merchant)).toMatchObject({ merchant_code: "CHANGED MEANWHILE" });
});

it("frees the key of a sync that was refused, so nothing is remembered for it", async () => {
  const squatter = await seedPartner(deps);
  const input = { merchants: [{ merchant_id: id(), stores: [] }] };
  const request = idempotencyRequest(`sync-${id()}`, "syncMerchants", { input });
  await expect(deps.merchantSync.syncMerchants(squatter.caller, input, request)).rejects.toMatchObject({
    code: "forbidden",
  });
  await expect(deps.merchantSync.syncMerchants(squatter.caller, input, request)).rejects.toMatchObject({
    code: "forbidden",
  });
});
