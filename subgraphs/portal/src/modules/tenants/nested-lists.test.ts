import { randomUUID } from "node:crypto";
import { type Caller, callerHeaders, hostSubgraph, type SubgraphHost } from "@pos-cloud/common";
import { testStorage, uniqueCode } from "@pos-cloud/test-support/environment";
import { type Branch, operator, seedBranch } from "@pos-cloud/test-support/portal-seed";
import { type GraphQLObjectType, getNamedType, isLeafType } from "graphql";
import { afterAll, beforeAll, describe, expect, it, type Mock, vi } from "vitest";
import type { PortalDeps } from "../../context";
import { openPortal, portal } from "../../index";

// The nested lists of a hierarchy read (`merchant { stores { devices } }`) read only the columns of the fields asked,
// on the driver, under the same tenant filter as the flat lists (`stores`, `terminals`), which read every column.

const token = "internal-token-for-tests";
let deps: PortalDeps;
let host: SubgraphHost;
let home: Branch;
let statements: Mock;

const leaves = (type: string) =>
  Object.values((host.schema.getType(type) as GraphQLObjectType).getFields())
    .filter((field) => isLeafType(getNamedType(field.type)))
    .map((field) => field.name)
    .join(" ");

const ask = async (caller: Caller, query: string) => {
  statements.mockClear();
  const result = await host.execute({ query }, callerHeaders(caller, token));
  expect(result.errors).toBeUndefined();
  return result.data as any;
};

beforeAll(async () => {
  deps = await openPortal(testStorage("portal"));
  host = hostSubgraph(portal, deps, token);
  home = await seedBranch(deps);
  await seedBranch(deps);
  await deps.tenants.updateStore(operator, home.otherStore.id, {
    tax_rate: 8.5,
    receipt_delivery: ["email"],
    provider_credentials: { paypay: { merchant_id: "pp-3", api_secret: "s3cret" } },
  });
  for (const store_id of [home.store.id, home.store.id, home.otherStore.id]) {
    await deps.devices.register(operator, {
      serial_number: uniqueCode("SN"),
      model: "m",
      manufacturer: "x",
      store_id,
      config: { enabled_payment_methods: ["credit_card"] },
    });
  }
  statements = vi.fn(deps.db.query.bind(deps.db));
  deps.db.query = statements as typeof deps.db.query;
});
afterAll(() => deps?.close());

describe("nested store and device lists", () => {
  it("hold every field as the flat lists do, at every tier and as a device", async () => {
    const storeFields = leaves("Store");
    const deviceFields = leaves("Device");
    const device = { type: "device" as const, id: randomUUID(), storeId: home.store.id, merchantId: home.merchant.id };
    for (const caller of [...Object.values(home.callers), { ...device, scopes: [] }]) {
      const nested = await ask(
        caller,
        `{ store(id: ${home.store.id}) { merchant { stores { ${storeFields} devices { ${deviceFields} } } } } }`,
      );
      const flat = await ask(
        caller,
        `{ stores(merchant_id: ${home.merchant.id}, limit: 100) { nodes { ${storeFields} } } }`,
      );
      const stores = nested.store.merchant.stores;
      expect(stores.map(({ devices: _, ...store }: any) => store)).toEqual(flat.stores.nodes);
      for (const store of stores) {
        const terminals = await ask(
          caller,
          `{ terminals(store_id: ${store.id}, limit: 100) { nodes { ${deviceFields} } } }`,
        );
        expect(store.devices).toEqual(terminals.terminals.nodes);
      }
    }
    const all = await ask(
      operator,
      `{ merchant(id: ${home.merchant.id}) { stores { id has_provider_credentials tax_rate } } }`,
    );
    expect(all.merchant.stores).toContainEqual({
      id: home.otherStore.id,
      has_provider_credentials: true,
      tax_rate: 8.5,
    });
  });

  it("read only the columns of the fields asked, one statement per type", async () => {
    const data = await ask(
      home.callers.L1,
      `{ psps { nodes { merchants { id stores { name ...Place devices { status } } } } } }
       fragment Place on Store { psp_id area_id }`,
    );
    const stores = data.psps.nodes.flatMap((psp: any) => psp.merchants.flatMap((merchant: any) => merchant.stores));
    expect(stores).toContainEqual({
      name: "Store",
      psp_id: home.psp.id,
      area_id: null,
      devices: [{ status: "unprovisioned" }, { status: "unprovisioned" }],
    });
    const sql = statements.mock.calls.map(([text]) => String(text).replace(/\s+/g, " "));
    expect(sql).toHaveLength(2);
    expect(sql[0]).toMatch(/^SELECT s\.id, s\.merchant_id, s\.area_id, s\.name, m\.psp_id FROM/);
    expect(sql[1]).toMatch(/^SELECT d\.id, d\.store_id, d\.status FROM/);
  });
});
