import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceToken, humanToken } from "../support/device";
import { clusterWiring } from "../support/environment";
import { movableClock } from "../support/payments";
import { postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

/** Milliseconds from `at` to the next midnight in Asia/Tokyo (UTC+9, no daylight saving). */
const untilTokyoMidnight = (at: Date) => 86_400_000 - ((at.getTime() + 9 * 3_600_000) % 86_400_000);
/** The hour (0–23) of a moment in Asia/Tokyo. */
const tokyoHour = (at: Date) => Math.floor(((at.getTime() + 9 * 3_600_000) % 86_400_000) / 3_600_000);

const DAY_FIELDS = `date gross_amount refund_amount net_amount payment_count refund_count
  totals { payment_method gross_amount refund_amount net_amount payment_count refund_count }`;
const OVERVIEW = `query ($store_id: Int, $date: String) { salesOverview(store_id: $store_id, date: $date) {
  date timezone store_id today { ${DAY_FIELDS} } last_week { ${DAY_FIELDS} }
  by_hour { hour amount count }
  outcomes { succeeded failed declined expired in_flight success_rate }
  failing_stores { store_id failed_count attempt_count store { id name } } } }`;
const STORE_DAY = `query ($store_id: Int, $date: String) { storeDay(store_id: $store_id, date: $date) { ${DAY_FIELDS} } }`;

type Figures = {
  gross_amount: number;
  refund_amount: number;
  net_amount: number;
  payment_count: number;
  refund_count: number;
  totals: { payment_method: string; gross_amount: number; payment_count: number }[];
};

/** Two days' figures added up, field by field and method by method. */
function sum(a: Figures, b: Figures) {
  const fields = ["gross_amount", "refund_amount", "net_amount", "payment_count", "refund_count"] as const;
  return {
    ...Object.fromEntries(fields.map((field) => [field, a[field] + b[field]])),
    totals: a.totals.map((total, index) =>
      Object.fromEntries(
        Object.entries(total).map(([key, value]) =>
          key === "payment_method" ? [key, value] : [key, (value as number) + (b.totals[index] as any)[key]],
        ),
      ),
    ),
  };
}

// The business overview through GraphQL: its money is the stores' days added up, its hours, outcomes and failing
// stores are the payments the terminals made, and it covers what the caller reaches and nothing else.
describe("the sales overview", () => {
  const clock = movableClock();
  let platform: TestPlatform;
  let first: SeededStore;
  let second: SeededStore;
  let terminals: string[];
  let staffCodes: string[];
  let table = 0;

  const rest = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await response.json()) as any;
  };
  /** A bill of 1100 (1000 + 10% tax) at a store's terminal. */
  async function bill(store: number) {
    const order = await rest(terminals[store]!, "POST", "/orders", {
      order_type: "dine_in",
      table_number: `O${++table}`,
      items: [{ sequence: 1, item_name: "Set", quantity: 1, unit_price: 1000 }],
    });
    const billed = await rest(terminals[store]!, "POST", "/bills", {
      order_id: order.id,
      staff_code: staffCodes[store],
      tax_percentage: 10,
    });
    return billed.id as string;
  }
  const cashSale = async (store: number) =>
    rest(terminals[store]!, "POST", "/payments", {
      bill_id: await bill(store),
      amount: 1100,
      payment_method: { type: "CASH" },
      cash_received: 2000,
    });
  async function declinedCard(store: number) {
    const started = await rest(terminals[store]!, "POST", "/payments", {
      bill_id: await bill(store),
      amount: 1100,
      payment_method: { type: "CREDIT_CARD" },
    });
    return rest(terminals[store]!, "PATCH", `/payments/${started.id}`, { status: "declined", error_message: "no" });
  }
  const ask = async (query: string, variables: Record<string, unknown>, token: string) =>
    (await postGraphQL(platform.baseUrl, query, variables, token)).body;
  const tokenOf = (role: string, store: SeededStore, own = true) =>
    humanToken(platform.portal, {
      role,
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
      ...(own ? { store_id: store.id } : {}),
    });

  beforeAll(async () => {
    // The sales must fall on one business day: a run that would cross midnight in Tokyo starts after it.
    const left = untilTokyoMidnight(clock());
    if (left < 60_000 && !clusterWiring) clock.advance(left + 500);
    platform = await startTestPlatform({ clock, demo: false });
    first = await seed(platform).store({ sells: true });
    second = await seed(platform).store({ sells: true, merchant: first.merchant });
    terminals = await Promise.all(
      [first, second].map(async (store) => deviceToken(platform.baseUrl, await seed(platform).device(store), clock())),
    );
    staffCodes = await Promise.all(
      [first, second].map(async (store) => (await seed(platform).user("STAFF", store)).login_id),
    );
  });
  afterAll(async () => {
    await platform?.close();
  });

  it("adds up the stores' days, and counts the sales by hour and by outcome", async () => {
    expect((await cashSale(0)).status).toBe("completed");
    expect((await cashSale(1)).status).toBe("completed");
    expect((await cashSale(1)).status).toBe("completed");
    expect((await declinedCard(1)).status).toBe("failed");
    const admin = await tokenOf("MERCHANT_ADMIN", first, false);
    const overview = await ask(OVERVIEW, {}, admin);
    expect(overview.errors).toBeUndefined();
    const shown = overview.data.salesOverview;
    const days = await Promise.all(
      [first, second].map(async (store) => (await ask(STORE_DAY, { store_id: store.id }, admin)).data.storeDay),
    );
    const { date: _, ...today } = shown.today;
    expect(today).toEqual(sum(days[0], days[1]));
    expect(shown.today).toMatchObject({ gross_amount: 3300, payment_count: 3 });
    expect(shown).toMatchObject({ store_id: null, timezone: "Asia/Tokyo", date: days[0].date });
    expect(shown.by_hour).toHaveLength(24);
    expect(shown.by_hour[tokyoHour(clock())]).toEqual({ hour: tokyoHour(clock()), amount: 3300, count: 3 });
    expect(shown.by_hour.reduce((total: number, hour: { amount: number }) => total + hour.amount, 0)).toBe(3300);
    expect(shown.outcomes).toEqual({
      succeeded: 3,
      failed: 0,
      declined: 1,
      expired: 0,
      in_flight: 0,
      success_rate: 0.75,
    });
    expect(shown.failing_stores).toEqual([
      { store_id: second.id, failed_count: 1, attempt_count: 3, store: { id: second.id, name: second.name } },
    ]);
  });

  it("shows a store manager its own store only, as its day", async () => {
    const manager = await tokenOf("STORE_MANAGER", first);
    const shown = (await ask(OVERVIEW, {}, manager)).data.salesOverview;
    const { date: _, ...day } = (await ask(STORE_DAY, {}, manager)).data.storeDay;
    const { date: __, ...today } = shown.today;
    expect(today).toEqual(day);
    expect(shown.today.gross_amount).toBe(1100);
    expect(shown.failing_stores).toEqual([]);
    const away = await ask(OVERVIEW, { store_id: second.id }, manager);
    expect(away.errors![0].extensions.code).toBe("NOT_FOUND");
  });

  it("covers a PSP's stores and an area's stores as the portal lists them", async () => {
    const admin = (await ask(OVERVIEW, {}, await tokenOf("MERCHANT_ADMIN", first, false))).data.salesOverview;
    const psp = await humanToken(platform.portal, { role: "PSP_ADMIN", psp_id: first.psp_id });
    expect((await ask(OVERVIEW, {}, psp)).data.salesOverview.today).toEqual(admin.today);
    const area = await seed(platform).area(second);
    const areaManager = await humanToken(platform.portal, {
      role: "AREA_MANAGER",
      psp_id: second.psp_id,
      merchant_id: second.merchant_id,
      area_id: area.id,
    });
    const inArea = (await ask(OVERVIEW, {}, areaManager)).data.salesOverview;
    const { date: _, ...day } = (await ask(STORE_DAY, { store_id: second.id }, areaManager)).data.storeDay;
    const { date: __, ...today } = inArea.today;
    expect(today).toEqual(day);
    expect(today.gross_amount).toBe(2200);
  });

  it("refuses a day not begun, a date that does not exist, and people below a store manager", async () => {
    const admin = await tokenOf("MERCHANT_ADMIN", first, false);
    const future = await ask(OVERVIEW, { date: "2999-01-01" }, admin);
    expect(future.errors![0].extensions).toMatchObject({ code: "INVALID_REQUEST" });
    expect(JSON.stringify(future.errors![0].extensions)).toContain("not_future");
    const invalid = await ask(OVERVIEW, { date: "2026-02-30" }, admin);
    expect(JSON.stringify(invalid.errors![0].extensions)).toContain("date");
    const staff = await ask(OVERVIEW, {}, await tokenOf("STAFF", first));
    expect(staff.errors![0].extensions.code).toBe("FORBIDDEN");
    const terminal = await ask(OVERVIEW, {}, terminals[0]!);
    expect(terminal.errors![0].extensions.code).toBe("FORBIDDEN");
  });
  it("puts today's figures beside the same weekday a week later", async () => {
    const before = (await ask(OVERVIEW, {}, await tokenOf("MERCHANT_ADMIN", first, false))).data.salesOverview;
    clock.advance(7 * 86_400_000);
    const after = (await ask(OVERVIEW, {}, await tokenOf("MERCHANT_ADMIN", first, false))).data.salesOverview;
    expect(after.last_week).toEqual(before.today);
    expect(after.today).toMatchObject({ gross_amount: 0, payment_count: 0 });
    expect(after.by_hour.every((hour: { count: number }) => hour.count === 0)).toBe(true);
  });
});
