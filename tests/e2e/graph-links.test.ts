import { type Role, roles } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceToken } from "../support/device";
import { uniqueCode } from "../support/environment";
import { logIn, postGraphQL, postJson, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededDevice, type SeededStore, seed } from "../support/seed";

// Issue 12, "the graph is walkable where a UI needs it": Merchant.areas, Area.stores, Store.staff and Device.store
// through the edge, for callers who reach them, and what they hold for callers of one tenant ("home": a store in an
// area, a user of every tier, a terminal) asked about a second tenant ("away"). Nested lists hold what the caller's
// own list holds; parent links resolve for whoever may read the child.
// PaymentIntent.store: tests/e2e/payment-intent-store.test.ts.

type Who = Role | "device";

/** Every tier, L0 to L6. */
const tiers = Object.keys(roles) as Role[];
let platform: TestPlatform;
let store: SeededStore;
let homeArea = "";
let terminal: SeededDevice;
const tokens = {} as Record<Who, string>;
const away = { merchant: 0, store: 0, device: "", area: "", staff: "" };
/** A second area of the home merchant, without stores. */
let emptyArea = "";

async function graphql(who: Who, query: string, variables: Record<string, unknown> = {}) {
  const { body } = await postGraphQL(platform.baseUrl, query, variables, tokens[who]);
  return { data: body.data, codes: body.errors?.map((error) => error.extensions?.code as string) };
}

async function create(path: string, body: unknown) {
  const created = await postJson(platform.baseUrl, `/api/v1/${path}`, body, tokens.SYSTEM_OP);
  expect(created.status).toBe(201);
  return created.body.id;
}

beforeAll(async () => {
  platform = await startTestPlatform({ demo: false });
  const home = seed(platform);
  store = await home.store();
  homeArea = (await home.area(store)).id;
  for (const role of tiers)
    tokens[role] = (await logIn(platform.baseUrl, await home.user(role, store, { id: homeArea }))).access_token;
  terminal = await home.device(store);
  tokens.device = await deviceToken(platform.baseUrl, terminal);
  const psp = await create("psps", { code: uniqueCode("P"), name: "away" });
  away.merchant = await create("merchants", { psp_id: psp, code: uniqueCode("M"), name: "away" });
  away.store = await create("stores", { merchant_id: away.merchant, code: uniqueCode("S"), name: "away store" });
  away.device = await create("terminals", {
    serial_number: uniqueCode("SN"),
    model: "m",
    manufacturer: "x",
    store_id: away.store,
  });
  away.staff = await create("users", { role: "STAFF", store_id: away.store, pin: "482913" });
  // Areas have no REST route; the portal's own service makes them, as the home tenant's.
  away.area = (await platform.portal.areas.createUnchecked(away.merchant, "away")).id;
  await platform.portal.areas.assignStoreUnchecked(away.store, away.area);
  emptyArea = (await platform.portal.areas.createUnchecked(store.merchant_id, "empty")).id;
});
afterAll(() => platform?.close());

const merchantAreas = "query($id: Int!) { merchant(id: $id) { areas { id stores { id name } } } }";
const storeLinks = "query($id: Int!) { store(id: $id) { staff { id role store_id } merchant { areas { id } } } }";
const deviceStore = "query($id: ID!) { terminal(id: $id) { store { id name merchant { id } } } }";

describe("links for callers who reach them", () => {
  it("Merchant.areas and Area.stores: a merchant's areas with their stores", async () => {
    const home = await graphql("MERCHANT_ADMIN", merchantAreas, { id: store.merchant_id });
    expect(home.codes).toBeUndefined();
    expect(home.data.merchant.areas).toEqual(
      expect.arrayContaining([
        { id: homeArea, stores: [{ id: store.id, name: expect.any(String) }] },
        { id: emptyArea, stores: [] },
      ]),
    );
    const foreign = await graphql("SYSTEM_OP", merchantAreas, { id: away.merchant });
    expect(foreign.data.merchant.areas).toEqual([{ id: away.area, stores: [{ id: away.store, name: "away store" }] }]);
  });

  it("an area manager sees its own area only, and store tiers and devices see no areas", async () => {
    // L3 reads its store's merchant by the parent link, but only its own area under it.
    const manager = await graphql("AREA_MANAGER", storeLinks, { id: store.id });
    expect(manager.data.store.merchant.areas).toEqual([{ id: homeArea }]);
    const areas = await graphql("AREA_MANAGER", "{ areas { id stores { id } } }");
    expect(areas.data.areas).toEqual([{ id: homeArea, stores: [{ id: store.id }] }]);
    for (const who of ["STORE_MANAGER", "STAFF", "device"] as const) {
      const result = await graphql(who, "query($id: Int!) { store(id: $id) { merchant { areas { id } } } }", {
        id: store.id,
      });
      expect(result.codes, who).toBeUndefined();
      expect(result.data.store.merchant.areas, who).toEqual([]);
    }
  });

  it("Store.staff: the store's users below the caller's tier, none for a device", async () => {
    const roles = async (who: Who) =>
      ((await graphql(who, storeLinks, { id: store.id })).data.store.staff as { role: string; store_id: number }[])
        .map((user) => {
          expect(user.store_id).toBe(store.id);
          return user.role;
        })
        .sort();
    expect(await roles("MERCHANT_ADMIN")).toEqual(["STAFF", "STAFF_LEADER", "STORE_MANAGER"]);
    expect(await roles("STORE_MANAGER")).toEqual(["STAFF", "STAFF_LEADER"]);
    expect(await roles("STAFF")).toEqual([]);
    expect(await roles("device")).toEqual([]);
    const foreign = await graphql("SYSTEM_OP", "query($id: Int!) { store(id: $id) { staff { id } } }", {
      id: away.store,
    });
    expect(foreign.data.store.staff).toEqual([{ id: away.staff }]);
  });

  it("Device.store: the store a terminal is bound to, for whoever may read the terminal", async () => {
    for (const who of ["PSP_ADMIN", "STORE_MANAGER", "STAFF", "device"] as const) {
      const result = await graphql(who, deviceStore, { id: terminal.id });
      expect(result.codes, who).toBeUndefined();
      expect(result.data.terminal.store, who).toMatchObject({ id: store.id, merchant: { id: store.merchant_id } });
    }
    const foreign = await graphql("SYSTEM_OP", deviceStore, { id: away.device });
    expect(foreign.data.terminal.store).toMatchObject({ id: away.store, name: "away store" });
  });
});

describe("links never lead a caller into another tenant", () => {
  /** Every caller of the home tenant but its system operator, who reaches every tenant. */
  const home = (): Who[] => [...tiers.filter((role) => role !== "SYSTEM_OP"), "device"];

  it("the foreign merchant, store and terminal are refused with their links", async () => {
    for (const who of home()) {
      for (const [query, id] of [
        [merchantAreas, away.merchant],
        [storeLinks, away.store],
        [deviceStore, away.device],
      ] as const) {
        const result = await graphql(who, query, { id });
        expect(result.codes, `${who} ${query}`).toEqual(["FORBIDDEN"]);
        expect(result.data, `${who} ${query}`).toBeNull();
      }
    }
  });

  it("nested lists hold no foreign rows", async () => {
    // Within the cost limit: each list without a page counts as 20 rows.
    const walk = `{
      psps(limit: 10) { nodes { merchants { areas { id stores { id } } } } }
      merchants { nodes { areas { id stores { id } } } }
      areas { id stores { id staff { id } devices { id store { id } } } }
    }`;
    for (const who of home()) {
      const result = await graphql(who, walk);
      const seen = JSON.stringify(result.data);
      for (const foreign of [away.area, away.staff, away.device, `"id":${away.store}`])
        expect(seen, who).not.toContain(foreign);
    }
    // The same walk as L0 does reach them, so the walk above would have shown them.
    const all = JSON.stringify((await graphql("SYSTEM_OP", walk)).data);
    for (const foreign of [away.area, away.staff, away.device, `"id":${away.store}`]) expect(all).toContain(foreign);
  });
});
