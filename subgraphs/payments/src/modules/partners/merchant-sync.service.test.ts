import { randomInt } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";
import { intentBody, openTestPayments, seedPartner } from "../../testing";

let deps: PaymentsDeps;
beforeAll(async () => {
  deps = await openTestPayments();
});
afterAll(() => deps?.close());

const id = () => randomInt(1, 2_000_000_000);

it("upserts both variants without duplicates and seals provider credentials", async () => {
  const { caller } = await seedPartner(deps);
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
  ).rejects.toMatchObject({ details: { field: "merchants[0].stores[0].is_active" } });
});
