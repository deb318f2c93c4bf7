import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceToken, humanToken } from "../support/device";
import { uniqueCode } from "../support/environment";
import { postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type Branch, operator, seedBranch } from "../support/portal-seed";
import { seed } from "../support/seed";

// Lists a UI pages through answer a page: { nodes, total_count, page_info { has_next_page end_cursor } }.
describe("GraphQL list pages", () => {
  let platform: TestPlatform;
  let home: Branch;
  let away: Branch;
  const tokens = { homeAdmin: "", operator: "", storeManager: "", terminal: "" };

  const page = "total_count page_info { has_next_page end_cursor } nodes { id }";
  const ids = (rows: { id: unknown }[]) => rows.map((row) => row.id);

  async function stores(token: string, args: { merchant_id?: number; limit?: number; offset?: number }) {
    const { body } = await postGraphQL(
      platform.baseUrl,
      `query($merchant_id: Int, $limit: Int, $offset: Int) {
        stores(merchant_id: $merchant_id, limit: $limit, offset: $offset) { ${page} } }`,
      args,
      token,
    );
    expect(body.errors).toBeUndefined();
    return body.data.stores;
  }

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    home = await seedBranch(platform.portal);
    await platform.portal.tenants.createStore(operator, {
      merchant_id: home.merchant.id,
      code: uniqueCode("S"),
      name: "Third store",
    });
    away = await seedBranch(platform.portal);
    tokens.homeAdmin = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: home.psp.id,
      merchant_id: home.merchant.id,
    });
    tokens.operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
    // The store the orders are taken in, by its terminal, and read by its manager.
    const store = await seed(platform).store();
    tokens.storeManager = await humanToken(platform.portal, {
      role: "STORE_MANAGER",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
      store_id: store.id,
    });
    tokens.terminal = await deviceToken(platform.baseUrl, await seed(platform).device(store));
  });
  afterAll(() => platform?.close());

  it("tells the total and whether another page follows: exact page, more, last page, past the end", async () => {
    const all = await stores(tokens.homeAdmin, { limit: 3 });
    expect(all).toMatchObject({ total_count: 3, page_info: { has_next_page: false, end_cursor: null } });
    expect(all.nodes).toHaveLength(3);

    const first = await stores(tokens.homeAdmin, { limit: 2 });
    expect(first).toMatchObject({ total_count: 3, page_info: { has_next_page: true } });
    const last = await stores(tokens.homeAdmin, { limit: 2, offset: 2 });
    expect(last).toMatchObject({ total_count: 3, page_info: { has_next_page: false } });
    expect([...ids(first.nodes), ...ids(last.nodes)]).toEqual(ids(all.nodes));

    expect(await stores(tokens.homeAdmin, { limit: 2, offset: 3 })).toEqual({
      total_count: 3,
      page_info: { has_next_page: false, end_cursor: null },
      nodes: [],
    });
  });

  it("never counts another tenant's rows, in any list", async () => {
    expect((await stores(tokens.homeAdmin, { merchant_id: away.merchant.id })).total_count).toBe(0);
    // The same filter as the platform operator finds them, so the count above would have shown a leak.
    expect((await stores(tokens.operator, { merchant_id: away.merchant.id })).total_count).toBe(2);
    const everyStore = await stores(tokens.operator, { limit: 100 });
    expect(ids(everyStore.nodes)).toContain(away.store.id);

    const { body } = await postGraphQL(
      platform.baseUrl,
      `{ psps(limit: 100) { ${page} } merchants(limit: 100) { ${page} } terminals(limit: 100) { ${page} }
        users(limit: 100) { ${page} } }`,
      {},
      tokens.homeAdmin,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.psps).toMatchObject({ total_count: 0, nodes: [] });
    expect(body.data.merchants).toMatchObject({ total_count: 1, nodes: [{ id: home.merchant.id }] });
    for (const list of Object.values(body.data) as { total_count: number; nodes: unknown[] }[])
      expect(list.total_count).toBe(list.nodes.length);
  });

  it("continues a list ordered by time from a cursor, stable while new rows arrive", async () => {
    const table = uniqueCode("T");
    const take = async () => {
      const response = await fetch(`${platform.baseUrl}/orders`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.terminal}`, "content-type": "application/json" },
        body: JSON.stringify({
          order_type: "dine_in",
          table_number: table,
          items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 300 }],
        }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    for (let i = 0; i < 3; i++) await take();
    const orders = async (variables: { limit: number; after?: string }) =>
      postGraphQL(
        platform.baseUrl,
        `query($table: String, $limit: Int, $after: String) {
          orders(table_number: $table, limit: $limit, after: $after) { ${page} } }`,
        { table, ...variables },
        tokens.storeManager,
      );

    const whole = ids((await orders({ limit: 3 })).body.data.orders.nodes);
    const first = (await orders({ limit: 2 })).body.data.orders;
    expect(first).toMatchObject({ total_count: 3, page_info: { has_next_page: true } });
    expect(ids(first.nodes)).toEqual(whole.slice(0, 2));
    // A new order comes first in the list: an offset would now show the second row again, the cursor does not.
    const newest = await take();
    const next = (await orders({ limit: 2, after: first.page_info.end_cursor })).body.data.orders;
    expect(next).toMatchObject({ total_count: 4, page_info: { has_next_page: false } });
    expect(ids(next.nodes)).toEqual(whole.slice(2));
    expect(ids(next.nodes)).not.toContain(newest);

    const refused = await orders({ limit: 2, after: "not-a-cursor" });
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({
      code: "INVALID_REQUEST",
      details: { field: "after", constraint: "cursor" },
    });
  });
});
