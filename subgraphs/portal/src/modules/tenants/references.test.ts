import { type Caller, callerHeaders, hostSubgraph, type SubgraphHost } from "@pos-cloud/common";
import { uniqueCode } from "@pos-cloud/test-support/environment";
import { portalWithClock } from "@pos-cloud/test-support/identity";
import { human, operator, seedBranch } from "@pos-cloud/test-support/portal-seed";
import { afterAll, beforeAll, describe, expect, it, type Mock, vi } from "vitest";
import { portal } from "../../index";

// The portal's own entities as another subgraph references them (`PaymentIntent.store` from payments): any number
// of references of one type is read in one statement, and each is checked against the caller like its single read.

const token = "internal-token-for-tests";
const query = `query($representations: [_Any!]!) {
  _entities(representations: $representations) {
    ... on Store { id name }
    ... on Merchant { id name }
    ... on Psp { id code }
    ... on Device { device_id: id serial_number }
  }
}`;
// Store.id is an Int and Device.id an ID: one selection of both is invalid GraphQL, so the device's goes by an alias
// (as the gateway's query planner aliases such fields).

let env: Awaited<ReturnType<typeof portalWithClock>>;
let host: SubgraphHost;
let home: Awaited<ReturnType<typeof seedBranch>>;
let away: Awaited<ReturnType<typeof seedBranch>>;
const stores: number[] = [];
const devices: string[] = [];
/** Reads by the model delegates (one statement each), and statements sent to the driver directly. */
let reads: Mock[];

const ask = async (caller: Caller, representations: object[]) => {
  for (const read of reads) read.mockClear();
  const result = await host.execute({ query, variables: { representations } }, callerHeaders(caller, token));
  const statements = reads.reduce((sum, read) => sum + read.mock.calls.length, 0);
  const data = result.data as { _entities: any[] } | undefined;
  // Each type's batch settles on its own, so errors are listed in the order of the references they refuse.
  const errors = result.errors?.toSorted((a, b) => Number(a.path?.[1]) - Number(b.path?.[1]));
  return { data, statements, codes: errors?.map((error) => error.extensions?.code) };
};
const store = (id: number) => ({ __typename: "Store", id });

beforeAll(async () => {
  env = await portalWithClock();
  host = hostSubgraph(portal, env.portal, token);
  home = await seedBranch(env.portal);
  away = await seedBranch(env.portal);
  stores.push(home.store.id, home.otherStore.id);
  for (let k = 0; k < 18; k++) {
    const made = await env.portal.tenants.createStore(operator, {
      merchant_id: home.merchant.id,
      code: uniqueCode("S"),
      name: `Store ${k}`,
    });
    stores.push(made.id);
  }
  for (const id of stores.slice(0, 5)) {
    const device = await env.portal.devices.register(operator, {
      serial_number: uniqueCode("SN"),
      model: "m",
      manufacturer: "x",
      store_id: id,
    });
    devices.push(device.id);
  }
  const { prisma, db } = env.portal;
  reads = [];
  // Prisma's model delegates cannot be spied on with vi.spyOn; the repositories read these properties at each call.
  for (const model of [prisma.store, prisma.merchant, prisma.psp, prisma.device] as unknown as Record<string, Mock>[]) {
    for (const method of ["findMany", "findUnique"]) {
      const counted = vi.fn(model[method]!.bind(model));
      model[method] = counted;
      reads.push(counted);
    }
  }
  const direct = vi.fn(db.query.bind(db));
  db.query = direct as typeof db.query;
  reads.push(direct);
});
afterAll(() => env?.close());

describe("the portal's entity references", () => {
  it("reads twenty stores in one statement for a caller who reaches them", async () => {
    const result = await ask(home.callers.L1, stores.map(store));
    expect(result.codes).toBeUndefined();
    expect(result.data?._entities.map((entity: { id: number }) => entity.id)).toEqual(stores);
    expect(result.statements).toBe(1);
  });

  it("reads merchants, PSPs and devices in one statement per type", async () => {
    const merchants = await ask(
      operator,
      [home.merchant.id, away.merchant.id].map((id) => ({ __typename: "Merchant", id })),
    );
    expect(merchants.data?._entities.map((entity: { name: string }) => entity.name)).toEqual(["Merchant", "Merchant"]);
    expect(merchants.statements).toBe(1);
    const psps = await ask(
      operator,
      [home.psp.id, away.psp.id].map((id) => ({ __typename: "Psp", id })),
    );
    expect(psps.data?._entities).toEqual([
      { id: home.psp.id, code: home.psp.code },
      { id: away.psp.id, code: away.psp.code },
    ]);
    expect(psps.statements).toBe(1);
    const terminals = await ask(
      home.callers.L2,
      devices.map((id) => ({ __typename: "Device", id })),
    );
    expect(terminals.codes).toBeUndefined();
    expect(terminals.data?._entities.map((entity: { device_id: string }) => entity.device_id)).toEqual(devices);
    expect(terminals.statements).toBe(1);
  });

  it("refuses each reference out of the caller's reach alone, as the single reads do", async () => {
    const mixed = await ask(home.callers.L1, [store(home.store.id), store(away.store.id), store(2_000_000_000)]);
    expect(mixed.data?._entities).toEqual([{ id: home.store.id, name: "Store" }, null, null]);
    expect(mixed.codes).toEqual(["forbidden", "not_found"]);
    expect(mixed.statements).toBe(1);
    // A store's staff reaches its store only; merchant and PSP detail are L0 to L2 and L0 to L1.
    const staff = await ask(home.callers.L6, [
      store(home.store.id),
      store(home.otherStore.id),
      { __typename: "Merchant", id: home.merchant.id },
      { __typename: "Psp", id: home.psp.id },
      { __typename: "Device", id: devices[1] },
    ]);
    expect(staff.data?._entities).toEqual([{ id: home.store.id, name: "Store" }, null, null, null, null]);
    expect(staff.codes).toEqual(["forbidden", "forbidden", "forbidden", "forbidden"]);
    const stranger = human("MERCHANT_ADMIN", { pspId: away.psp.id, merchantId: away.merchant.id });
    const foreign = await ask(stranger, [
      store(home.store.id),
      { __typename: "Merchant", id: home.merchant.id },
      { __typename: "Device", id: devices[0] },
      { __typename: "Device", id: "not-a-uuid" },
    ]);
    expect(foreign.data?._entities).toEqual([null, null, null, null]);
    expect(foreign.codes).toEqual(["forbidden", "forbidden", "forbidden", "not_found"]);
  });

  it("answers 401 without a caller before reading anything", async () => {
    const anonymous = await ask({ type: "anonymous", scopes: [] }, [store(home.store.id)]);
    expect(anonymous.codes).toEqual(["unauthorized"]);
    expect(anonymous.statements).toBe(0);
  });
});
