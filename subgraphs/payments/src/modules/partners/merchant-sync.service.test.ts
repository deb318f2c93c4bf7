import { randomInt } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PaymentsDeps } from "../../index";
import { openTestPayments, seedPartner } from "../../testing";

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
