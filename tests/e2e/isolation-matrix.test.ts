import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DemoUser } from "../../apps/platform/src/demo";
import { deviceToken } from "../support/device";
import { uniqueCode } from "../support/environment";
import { call, signed } from "../support/gateway";
import { logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededDevice, type SeededStore, type SeededStorePartner, seed } from "../support/seed";

/** The away store manager's password: the secret of the refunds it approves. */
const MANAGER_PASSWORD = "a long enough password";

// The tenant isolation matrix: a second tenant ("away", its own PSP) beside the home tenant (the seeded store's), and
// every caller of the home tenant (L0 to L6 from real logins, its terminal's device token) plus the anonymous caller
// asking for each away resource over REST and GraphQL, nested fields and cross-subgraph entity references included.
// L0 reaches every tenant; everyone else gets 403 for a portal resource (the spec's tenant boundary) and 404 for a
// POS row (docs/decisions.md, "POS: orders and bills"); without a token it is 401. A tier below a route's minimum
// gets 403 in its own tenant too, which the matrix checks apart. Subgraphs reached directly, without the gateway:
// tests/support/store-references.ts.

const callers = ["anonymous", "L0", "L1", "L2", "L3", "L4", "L5", "L6", "device"] as const;
type Who = (typeof callers)[number];
const roles = {
  L0: "SYSTEM_OP",
  L1: "PSP_ADMIN",
  L2: "MERCHANT_ADMIN",
  L3: "AREA_MANAGER",
  L4: "STORE_MANAGER",
  L5: "STAFF_LEADER",
  L6: "STAFF",
} as const;

/**
 * What every caller gets: 401 without a token, `operator` for the platform operator, 403 for the tiers a route
 * refuses whatever the tenant (`refused`), `others` for everyone else.
 */
const statuses = (others: number, { operator = 200, refused = [] as readonly Who[] } = {}) =>
  Object.fromEntries(
    callers.map((who) => [
      who,
      who === "anonymous" ? 401 : refused.includes(who) ? 403 : who === "L0" ? operator : others,
    ]),
  ) as Record<Who, number>;
/** A foreign portal resource: 401 without a token, 200 for the platform operator, 403 for every tenant's caller. */
const foreign = statuses(403);
/** Customers are for Store Managers (L4) and above; settlements for them and terminals. */
const customerRefused = ["L5", "L6", "device"] as const;
const settlementRefused = ["L5", "L6"] as const;

const graphqlStatus: Record<string, number> = {
  UNAUTHENTICATED: 401,
  INVALID_REQUEST: 400,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
};

let platform: TestPlatform;
let homeStore: SeededStore;
let terminal: SeededDevice;
/** The POS partner's key that signs for the home store. */
let partner: SeededStorePartner;
const users = {} as Record<Exclude<Who, "anonymous" | "device">, DemoUser>;
const tokens = {} as Record<Exclude<Who, "anonymous" | "device">, string>;
let device = { token: "", at: 0 };
const away = {
  psp: 0,
  merchant: 0,
  store: 0,
  device: "",
  user: "",
  /** The away store manager's login id: the staff code of its bills and refunds. */
  manager: "",
  area: "",
  email: "",
  customer: "",
  order: "",
  bill: "",
  payment: "",
  settlement: "",
};

/** The device token lives 90 seconds; a fresh one for whatever the matrix still has to ask. */
async function tokenOf(who: Who): Promise<string | undefined> {
  if (who === "anonymous") return undefined;
  if (who !== "device") return tokens[who];
  if (Date.now() - device.at > 60_000)
    device = { token: await deviceToken(platform.baseUrl, terminal), at: Date.now() };
  return device.token;
}

async function rest(who: Who, path: string, write?: { method: "POST" | "PATCH"; body: unknown }) {
  const token = await tokenOf(who);
  const response = await fetch(`${platform.baseUrl}${path}`, {
    method: write?.method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(write ? { "content-type": "application/json" } : {}),
    },
    body: write && JSON.stringify(write.body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function graphql(who: Who, query: string, variables: Record<string, unknown> = {}) {
  const { status, body } = await postGraphQL(platform.baseUrl, query, variables, await tokenOf(who));
  const code = body.errors?.[0]?.extensions?.code as string | undefined;
  return { status: status === 200 && code ? (graphqlStatus[code] ?? 500) : status, body };
}

/** POSTs a new resource as `who` (the platform operator by default); returns its id. */
const create = async (path: string, body: unknown, who: Exclude<Who, "anonymous" | "device"> = "L0") => {
  const response = await fetch(`${platform.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${tokens[who]}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status, path).toBe(201);
  return ((await response.json()) as { id: never }).id;
};

beforeAll(async () => {
  platform = await startTestPlatform({ demo: false });
  homeStore = await seed(platform).store({ sells: true });
  terminal = await seed(platform).device(homeStore);
  partner = await seed(platform).storePartner(homeStore);
  for (const [tier, role] of Object.entries(roles) as [keyof typeof roles, DemoUser["role"]][]) {
    users[tier] = await seed(platform).user(role, homeStore);
    tokens[tier] = (await logIn(platform.baseUrl, users[tier])).access_token;
  }
  away.psp = await create("/api/v1/psps", { code: uniqueCode("P"), name: "away" });
  away.merchant = await create("/api/v1/merchants", { psp_id: away.psp, code: uniqueCode("M"), name: "away" });
  away.store = await create("/api/v1/stores", {
    merchant_id: away.merchant,
    code: uniqueCode("S"),
    name: "away",
  });
  away.device = await create("/api/v1/terminals", {
    serial_number: uniqueCode("SN"),
    model: "m",
    manufacturer: "x",
    store_id: away.store,
  });
  away.user = await create("/api/v1/users", {
    role: "STORE_MANAGER",
    store_id: away.store,
    password: MANAGER_PASSWORD,
  });
  const area = await graphql(
    "L0",
    'mutation($merchant: Int!) { createArea(input: { merchant_id: $merchant, name: "away" }) { id } }',
    {
      merchant: away.merchant,
    },
  );
  away.area = area.body.data.createArea.id;
  await graphql(
    "L0",
    "mutation($store: Int!, $area: ID) { assignStoreToArea(input: { store_id: $store, area_id: $area }) { id } }",
    {
      store: away.store,
      area: away.area,
    },
  );

  // The away tenant's POS rows, made by the operator: a customer, its order billed and paid in cash, part of the
  // payment refunded (so the receipt stays and the refund status has a refund), and a business day settled and closed.
  away.email = `away-${randomUUID()}@example.com`;
  away.customer = await create("/api/v1/customers", { merchant_id: away.merchant, email: away.email });
  away.order = await create("/api/v1/orders", {
    store_id: away.store,
    order_type: "takeaway",
    customer_id: away.customer,
    items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 300 }],
  });
  away.manager = (await rest("L0", `/api/v1/users/${away.user}`)).body.login_id;
  away.bill = await create("/api/v1/bills", { order_id: away.order, staff_code: away.manager, tax_percentage: 10 });
  // Cash is recorded at the gateway, which takes intents for a store once the portal's sync has reached it.
  await vi.waitFor(
    async () =>
      expect(
        (await platform.payments.prisma.store.findUnique({ where: { id: away.store } }))?.synced_until,
      ).toBeTruthy(),
    { timeout: 10_000 },
  );
  away.payment = await create("/api/v1/payments", {
    bill_id: away.bill,
    amount: 330,
    payment_method: { type: "CASH" },
    cash_received: 500,
  });
  // The operator names the manager as approver, so it gives the manager's secret (issue 32).
  await create(`/api/v1/payments/${away.payment}/refund`, {
    refund_amount: 100,
    reason: "isolation",
    staff_code: away.manager,
    staff_pin: MANAGER_PASSWORD,
  });
  away.settlement = await create("/api/v1/settlements", { store_id: away.store, date: "2025-01-01", auto_close: true });
});
afterAll(() => platform?.close());

type Ask = (who: Who) => Promise<{ status: number }>;

/** A merchant's customers with this e-mail address. */
const customersOf =
  "query($merchant: Int!, $email: String) { customers(merchant_id: $merchant, email: $email) { total_count } }";
/** A POS list's page for one store. */
const storePage =
  (field: string, store: () => number): Ask =>
  (who) =>
    graphql(who, `query($id: Int!) { ${field}(store_id: $id) { total_count } }`, { id: store() });

/** One test per row: every caller asks, and each gets the row's expected status. */
function everyCallerAsks(rows: [name: string, ask: Ask, expected: Record<Who, number>][]) {
  for (const [name, ask, expected] of rows) {
    it(name, async () => {
      const outcome = {} as Record<Who, number>;
      for (const who of callers) outcome[who] = (await ask(who)).status;
      expect(outcome).toEqual(expected);
    });
  }
}

describe("a foreign resource by id", () => {
  const cases: [string, Ask][] = [
    ["REST GET /merchants/{id}", (who) => rest(who, `/api/v1/merchants/${away.merchant}`)],
    ["REST GET /stores/{id}", (who) => rest(who, `/api/v1/stores/${away.store}`)],
    ["REST GET /stores/{id}/devices", (who) => rest(who, `/api/v1/stores/${away.store}/devices`)],
    ["REST GET /stores/{id}/staff", (who) => rest(who, `/api/v1/stores/${away.store}/staff`)],
    ["REST GET /terminals/{id}", (who) => rest(who, `/api/v1/terminals/${away.device}`)],
    ["REST GET /users/{id}", (who) => rest(who, `/api/v1/users/${away.user}`)],
    ["GraphQL psp", (who) => graphql(who, "query($id: Int!) { psp(id: $id) { id } }", { id: away.psp })],
    ["GraphQL merchant", (who) => graphql(who, "query($id: Int!) { merchant(id: $id) { id } }", { id: away.merchant })],
    ["GraphQL store", (who) => graphql(who, "query($id: Int!) { store(id: $id) { id } }", { id: away.store })],
    [
      "GraphQL store.open_orders_count (pos entity reference)",
      (who) => graphql(who, "query($id: Int!) { store(id: $id) { open_orders_count } }", { id: away.store }),
    ],
    [
      "GraphQL store.payment_intents_count (payments entity reference)",
      (who) => graphql(who, "query($id: Int!) { store(id: $id) { payment_intents_count } }", { id: away.store }),
    ],
    [
      "GraphQL store.devices (nested list)",
      (who) => graphql(who, "query($id: Int!) { store(id: $id) { devices { id } } }", { id: away.store }),
    ],
    [
      "GraphQL storeDevices",
      (who) => graphql(who, "query($id: Int!) { storeDevices(store_id: $id) { nodes { id } } }", { id: away.store }),
    ],
    [
      "GraphQL storeStaff",
      (who) => graphql(who, "query($id: Int!) { storeStaff(store_id: $id) { id } }", { id: away.store }),
    ],
    ["GraphQL terminal", (who) => graphql(who, "query($id: ID!) { terminal(id: $id) { id } }", { id: away.device })],
    ["GraphQL user", (who) => graphql(who, "query($id: ID!) { user(id: $id) { id } }", { id: away.user })],
  ];

  everyCallerAsks(cases.map(([name, ask]) => [name, ask, foreign]));
});

describe("the POS service's rows by id", () => {
  // POS rows of a store out of reach are not found, like rows that do not exist; an L0 reads them. Customers of
  // another merchant are 404 too (the spec); the tiers a route refuses get 403 before any lookup (next describe).
  const notFound = statuses(404);
  const customer = statuses(404, { refused: customerRefused });
  const settlement = statuses(404, { refused: settlementRefused });
  /** A home store's field asked for an away row: not in that store, for the operator too. */
  const notInHomeStore = statuses(404, { operator: 404 });

  /** `field(arg: $id)` at the root, for the away row `key`. */
  const root =
    (field: string, key: keyof typeof away, arg = "id"): Ask =>
    (who) =>
      graphql(who, `query($id: ID!) { ${field}(${arg}: $id) { __typename } }`, { id: away[key] });
  /** The pos subgraph's field of a `Store` (an entity reference placed by the portal), for the away row `key`. */
  const storeField =
    (field: string, key: keyof typeof away, store: () => number): Ask =>
    (who) =>
      graphql(who, `query($store: Int!, $id: ID!) { store(id: $store) { ${field}(id: $id) { id } } }`, {
        store: store(),
        id: away[key],
      });

  /** A store's row read by id and listed for the away store, over REST and GraphQL, and through a `Store`. */
  const storeRow = (
    key: "order" | "bill" | "payment",
    names: { path: string; one: string; page: string; onStore: string },
  ): [string, Ask, Record<Who, number>][] => [
    [`REST GET /${names.path}/{id}`, (who) => rest(who, `/api/v1/${names.path}/${away[key]}`), notFound],
    [
      `REST GET /${names.path}?store_id={away}`,
      (who) => rest(who, `/api/v1/${names.path}?store_id=${away.store}`),
      notFound,
    ],
    [`GraphQL ${names.one}`, root(names.one, key), notFound],
    [`GraphQL ${names.page}(store_id: away)`, storePage(names.page, () => away.store), notFound],
    [`GraphQL store(away).${names.onStore}`, storeField(names.onStore, key, () => away.store), foreign],
    [
      `GraphQL store(home).${names.onStore} of an away row`,
      storeField(names.onStore, key, () => homeStore.id),
      notInHomeStore,
    ],
  ];

  everyCallerAsks([
    ...storeRow("order", { path: "orders", one: "order", page: "orders", onStore: "order" }),
    ...storeRow("bill", { path: "bills", one: "bill", page: "bills", onStore: "bill" }),
    ...storeRow("payment", { path: "payments", one: "posPayment", page: "posPayments", onStore: "pos_payment" }),
    [
      "REST GET /payments/{id}/refund-status",
      (who) => rest(who, `/api/v1/payments/${away.payment}/refund-status`),
      notFound,
    ],
    ["GraphQL posRefundStatus", root("posRefundStatus", "payment", "payment_id"), notFound],
    ["REST GET /payments/{id}/receipt", (who) => rest(who, `/api/v1/payments/${away.payment}/receipt`), notFound],
    ["GraphQL posReceipt", root("posReceipt", "payment", "payment_id"), notFound],
    ["REST GET /customers/{id}", (who) => rest(who, `/api/v1/customers/${away.customer}`), customer],
    ["REST GET /customers/{id}/orders", (who) => rest(who, `/api/v1/customers/${away.customer}/orders`), customer],
    [
      "REST GET /customers?merchant_id={away}",
      (who) => rest(who, `/api/v1/customers?merchant_id=${away.merchant}&email=${encodeURIComponent(away.email)}`),
      customer,
    ],
    ["GraphQL customer", root("customer", "customer"), customer],
    ["GraphQL customerOrders", root("customerOrders", "customer"), customer],
    [
      "GraphQL customers(merchant_id: away)",
      (who) => graphql(who, customersOf, { merchant: away.merchant, email: away.email }),
      customer,
    ],
    ["REST GET /settlements/{id}", (who) => rest(who, `/api/v1/settlements/${away.settlement}`), settlement],
    [
      "REST GET /settlements?store_id={away}",
      (who) => rest(who, `/api/v1/settlements?store_id=${away.store}`),
      settlement,
    ],
    ["GraphQL settlement", root("settlement", "settlement"), settlement],
    ["GraphQL settlements(store_id: away)", storePage("settlements", () => away.store), settlement],
  ]);
});

describe("writes to a foreign POS row", () => {
  // Another tenant's caller is refused (404) before anything is written. The operator reaches the row and is refused
  // only by its state or the amount, so no write lands and the rows stay as the other tests expect them.
  /** The operator is refused by the row's state (409 `invalid_state`: completed, paid, closed). */
  const refusedByState = statuses(404, { operator: 409 });
  /** The operator is refused by the amount (400: more than remains to pay or to refund). */
  const refusedByAmount = statuses(404, { operator: 400 });
  const items = [{ sequence: 1, item_name: "Coffee", quantity: 1, unit_price: 400 }];

  everyCallerAsks([
    [
      "REST PATCH /orders/{id}",
      (who) => rest(who, `/api/v1/orders/${away.order}`, { method: "PATCH", body: { items } }),
      refusedByState,
    ],
    [
      "REST POST /orders/{id}/cancel",
      (who) => rest(who, `/api/v1/orders/${away.order}/cancel`, { method: "POST", body: {} }),
      refusedByState,
    ],
    [
      "REST POST /bills of an away order",
      (who) =>
        rest(who, "/api/v1/bills", {
          method: "POST",
          body: { order_id: away.order, staff_code: away.manager, tax_percentage: 10 },
        }),
      refusedByState,
    ],
    [
      "REST POST /bills/{id}/split",
      (who) =>
        rest(who, `/api/v1/bills/${away.bill}/split`, {
          method: "POST",
          body: { splits: [{ amount: 100 }, { amount: 230 }] },
        }),
      refusedByState,
    ],
    [
      "REST POST /bills/{id}/cancel",
      (who) => rest(who, `/api/v1/bills/${away.bill}/cancel`, { method: "POST", body: {} }),
      refusedByState,
    ],
    [
      "REST POST /payments of an away bill",
      (who) =>
        rest(who, "/api/v1/payments", {
          method: "POST",
          body: { bill_id: away.bill, amount: 10, payment_method: { type: "CASH" }, cash_received: 10 },
        }),
      // The away bill is paid: a payment re-reads its bill under the payment lock (issue 21) and finds it so.
      refusedByState,
    ],
    [
      "REST PATCH /payments/{id} (a card result)",
      (who) => rest(who, `/api/v1/payments/${away.payment}`, { method: "PATCH", body: { status: "declined" } }),
      refusedByState,
    ],
    [
      "REST POST /payments/{id}/refund",
      (who) =>
        rest(who, `/api/v1/payments/${away.payment}/refund`, {
          method: "POST",
          body: { refund_amount: 1000, reason: "isolation", staff_code: away.manager },
        }),
      refusedByAmount,
    ],
    [
      "REST PATCH /customers/{id}",
      // Without its only contact the customer cannot stay (400), which only a caller who reaches it learns.
      (who) => rest(who, `/api/v1/customers/${away.customer}`, { method: "PATCH", body: { email: null } }),
      statuses(404, { operator: 400, refused: customerRefused }),
    ],
    [
      "REST POST /settlements/{id}/close",
      (who) => rest(who, `/api/v1/settlements/${away.settlement}/close`, { method: "POST", body: {} }),
      statuses(404, { operator: 409, refused: settlementRefused }),
    ],
  ]);
});

describe("a route's minimum tier, in the caller's own tenant too", () => {
  // The 403 the tiers below Store Manager get for an away customer or settlement is their tier, not the boundary:
  // they get it for the home tenant's rows, which every tier above reads.
  const home = { email: `home-${randomUUID()}@example.com`, customer: "", settlement: "" };
  beforeAll(async () => {
    home.customer = await create("/api/v1/customers", { email: home.email }, "L4");
    home.settlement = await create("/api/v1/settlements", { date: "2025-01-01" }, "L4");
  });
  const customer = statuses(200, { refused: customerRefused });
  const settlement = statuses(200, { refused: settlementRefused });

  everyCallerAsks([
    ["REST GET /customers/{id}", (who) => rest(who, `/api/v1/customers/${home.customer}`), customer],
    [
      "GraphQL customers(merchant_id: home)",
      (who) => graphql(who, customersOf, { merchant: homeStore.merchant_id, email: home.email }),
      customer,
    ],
    ["REST GET /settlements/{id}", (who) => rest(who, `/api/v1/settlements/${home.settlement}`), settlement],
    ["GraphQL settlements(store_id: home)", storePage("settlements", () => homeStore.id), settlement],
  ]);
});

describe("lists and nested lists", () => {
  /** Every object of a GraphQL answer as `Type:id`, at any depth, and an area's store ids as `Store:id`. */
  const objects = (value: unknown, found = new Set<string>()): Set<string> => {
    if (Array.isArray(value)) for (const item of value) objects(item, found);
    else if (value && typeof value === "object") {
      const node = value as Record<string, unknown>;
      if (node.__typename && node.id !== undefined) found.add(`${node.__typename}:${node.id}`);
      if (Array.isArray(node.store_ids)) for (const id of node.store_ids) found.add(`Store:${id}`);
      for (const child of Object.values(node)) objects(child, found);
    }
    return found;
  };
  const foreignObjects = () =>
    new Set([
      `Psp:${away.psp}`,
      `Merchant:${away.merchant}`,
      `Store:${away.store}`,
      `Device:${away.device}`,
      `User:${away.user}`,
      `Area:${away.area}`,
      `Customer:${away.customer}`,
      `Order:${away.order}`,
      `Bill:${away.bill}`,
      `PosPayment:${away.payment}`,
      `Settlement:${away.settlement}`,
    ]);
  const restList = async (who: Who, path: string, type: string) => {
    const { status, body } = await rest(who, path);
    const items = (Array.isArray(body) ? body : (body.data ?? [])) as { id: unknown }[];
    return { status, found: new Set(items.map((item) => `${type}:${item.id}`)) };
  };
  const graphqlList = async (who: Who, query: string) => {
    const { status, body } = await graphql(who, query, { home: homeStore.id });
    return { status, found: objects(body.data) };
  };

  // [name, ask, whether L0's answer holds the away tenant (so the check can see a leak)]
  type List = [string, (who: Who) => Promise<{ status: number; found: Set<string> }>, boolean];
  const lists: List[] = [
    ["REST GET /psps", (who) => restList(who, "/api/v1/psps?limit=100", "Psp"), true],
    ["REST GET /merchants", (who) => restList(who, "/api/v1/merchants?limit=100", "Merchant"), true],
    ["REST GET /stores", (who) => restList(who, "/api/v1/stores?limit=100", "Store"), true],
    ["REST GET /terminals", (who) => restList(who, "/api/v1/terminals?limit=100", "Device"), true],
    ["REST GET /users", (who) => restList(who, "/api/v1/users?limit=100", "User"), true],
    ["REST GET /orders", (who) => restList(who, "/api/v1/orders?limit=100", "Order"), true],
    ["REST GET /bills", (who) => restList(who, "/api/v1/bills?limit=100", "Bill"), true],
    ["REST GET /payments", (who) => restList(who, "/api/v1/payments?limit=100", "PosPayment"), true],
    ["REST GET /settlements", (who) => restList(who, "/api/v1/settlements?limit=100", "Settlement"), true],
    [
      // Without merchant_id a search is the caller's own merchant's (an L0 or L1 must name one: 400).
      "REST GET /customers?email= of the away customer",
      (who) => restList(who, `/api/v1/customers?email=${encodeURIComponent(away.email)}`, "Customer"),
      false,
    ],
    [
      "GraphQL psps > merchants > stores > devices",
      (who) =>
        graphqlList(
          who,
          "{ psps { nodes { __typename id merchants { __typename id stores { __typename id devices { __typename id } } } } } }",
        ),
      true,
    ],
    [
      "GraphQL merchants > psp, stores > devices",
      (who) =>
        graphqlList(
          who,
          "{ merchants(limit: 100) { nodes { __typename id psp { __typename id } stores { __typename id devices { __typename id } } } } }",
        ),
      true,
    ],
    [
      "GraphQL stores with their cross-subgraph counts, merchant and devices",
      (who) =>
        graphqlList(
          who,
          `{ stores(limit: 100) { nodes { __typename id open_orders_count payment_intents_count
              merchant { __typename id psp { __typename id } } devices { __typename id } } } }`,
        ),
      true,
    ],
    ["GraphQL terminals", (who) => graphqlList(who, "{ terminals(limit: 100) { nodes { __typename id } } }"), true],
    ["GraphQL users", (who) => graphqlList(who, "{ users(limit: 100) { nodes { __typename id } } }"), true],
    ["GraphQL areas", (who) => graphqlList(who, "{ areas { __typename id store_ids } }"), true],
    [
      "GraphQL up from a home store and down again",
      (who) =>
        graphqlList(
          who,
          `query($home: Int!) { store(id: $home) { merchant { __typename id stores { __typename id }
              psp { __typename id merchants { __typename id stores { __typename id } } } } } }`,
        ),
      false,
    ],
    [
      "GraphQL storeStaff of a home store",
      (who) => graphqlList(who, "query($home: Int!) { storeStaff(store_id: $home) { __typename id } }"),
      false,
    ],
    ...["orders", "bills", "posPayments", "settlements"].flatMap((field): List[] => [
      [
        `GraphQL ${field} > store`,
        (who) => graphqlList(who, `{ ${field}(limit: 100) { nodes { __typename id store { __typename id } } } }`),
        true,
      ],
      [
        // The list PSP admins and area managers ask for: they name a store.
        `GraphQL ${field} of a home store`,
        (who) =>
          graphqlList(who, `query($home: Int!) { ${field}(store_id: $home, limit: 100) { nodes { __typename id } } }`),
        false,
      ],
    ]),
    [
      "GraphQL customers(email) of the away customer",
      (who) => graphqlList(who, `{ customers(email: ${JSON.stringify(away.email)}) { nodes { __typename id } } }`),
      false,
    ],
  ];

  for (const [name, ask, l0SeesAway] of lists) {
    it(name, async () => {
      for (const who of callers) {
        const { status, found } = await ask(who);
        const leaked = [...foreignObjects()].filter((key) => found.has(key));
        if (who === "anonymous") expect(status, who).toBe(401);
        else if (who === "L0") expect(leaked.length > 0, who).toBe(l0SeesAway);
        else expect(leaked, who).toEqual([]);
      }
    });
  }
});

describe("payment intents, between client partners", () => {
  it("answers another partner 404 and lists nothing of the owner's; tenants' people read no intents", async () => {
    const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
      amount: 1200,
      currency: "JPY",
      payment_method_types: ["qr_mpm"],
      merchant_ref_id: `order-${randomUUID()}`,
      merchant_store_id: partner.store_code,
    });
    expect(created.status).toBe(201);
    const { id } = created.body;

    const awayPartner = await platform.partners.createPartner("away partner");
    const other = await platform.partners.issueApiKey(awayPartner.id);
    for (const action of ["capture", "refund"]) {
      const stolen = await signed(platform.baseUrl, other, "POST", `/v1/payment_intents/${id}/${action}`, {});
      expect(stolen.status, action).toBe(404);
    }
    const listed = await signed(platform.baseUrl, other, "GET", "/v1/payment_intents?limit=100");
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(id);

    for (const who of callers) {
      const answer = await graphql(who, "{ paymentIntents(limit: 100) { nodes { id } } }");
      expect(answer.status, who).toBe(401);
      expect(answer.body.data).toBeNull();
    }
  });
});

describe("partner grants", () => {
  it("shows a partner without a grant nothing of a store, and a grant to the home merchant's L0 to L2 alone", async () => {
    const grantee = await platform.partners.createPartner("grantee partner");
    const key = await platform.partners.issueApiKey(grantee.id);
    const intentAt = (merchant_store_id?: string) =>
      signed(platform.baseUrl, key, "POST", "/v1/payment_intents", {
        amount: 1200,
        currency: "JPY",
        payment_method_types: ["cash"],
        merchant_ref_id: `order-${randomUUID()}`,
        merchant_store_id,
      });
    // By code, by id or a code nobody has: one answer, so the partner cannot tell which stores exist.
    const answers = [];
    for (const named of [homeStore.code, String(homeStore.id), uniqueCode("NONE")]) answers.push(await intentAt(named));
    expect(new Set(answers.map((answer) => JSON.stringify([answer.status, answer.body])))).toEqual(
      new Set([JSON.stringify([400, answers[2]!.body])]),
    );
    expect(answers[2]!.body.details).toEqual({ field: "merchant_store_id", constraint: "unknown_store" });
    expect((await intentAt()).body.details).toMatchObject({ field: "merchant_store_id", constraint: "required" });
    const listed = await signed(
      platform.baseUrl,
      key,
      "GET",
      `/v1/payment_intents?merchant_store_id=${homeStore.code}`,
    );
    expect(listed.body).toEqual([]);

    const body = { merchant_id: homeStore.merchant_id };
    const granted = await rest("L0", `/api/v1/partners/${grantee.id}/grants`, { method: "POST", body });
    expect(granted.status).toBe(201);
    const readers = statuses(403, { refused: ["L3", "L4", "L5", "L6", "device"] });
    for (const who of callers) {
      const expected = ["L1", "L2"].includes(who) ? 200 : readers[who];
      const overRest = await rest(who, `/api/v1/partners/${grantee.id}/grants`);
      expect(overRest.status, who).toBe(expected);
      if (expected === 200) expect(overRest.body, who).toHaveLength(1);
      const overGraphQL = await graphql(
        who,
        "query($m: Int!) { merchantPartnerGrants(merchant_id: $m) { nodes { client_partner_id } } }",
        { m: homeStore.merchant_id },
      );
      expect(overGraphQL.status, who).toBe(expected);
    }
    expect((await intentAt(homeStore.code)).status).toBe(201);
  });
});

describe("who is calling", () => {
  it("refuses tenant data without a token: REST 401 unauthorized, GraphQL 401 with only UNAUTHENTICATED", async () => {
    expect(await rest("anonymous", "/api/v1/merchants")).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    const { status, body } = await postGraphQL(
      platform.baseUrl,
      "{ stores { nodes { id } } merchants { nodes { id } } }",
    );
    expect(status).toBe(401);
    expect(body.data).toBeNull();
    expect(body.errors?.length).toBeGreaterThan(0);
    expect(body.errors?.every((error) => error.extensions?.code === "UNAUTHENTICATED")).toBe(true);
  });

  it("answers 200 when a public field is answered beside the refused one", async () => {
    const { status, body } = await postGraphQL(platform.baseUrl, '{ jwks(purpose: human) user(id: "x") { id } }');
    expect(status).toBe(200);
    expect(body.data).toMatchObject({ jwks: { keys: expect.any(Array) }, user: null });
    expect(body.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");
  });

  it("keeps public operations public", async () => {
    expect((await fetch(`${platform.baseUrl}/health`)).status).toBe(200);
    expect((await rest("anonymous", "/api/v1/jwks/device")).status).toBe(200);
    const status = await rest("anonymous", "/api/v1/device/provision/activationStatus?activation_code=ABCD-EFGH");
    expect(status.status).not.toBe(401);
    const operator = users.L0;
    const login = await postGraphQL(
      platform.baseUrl,
      "mutation($id: String, $password: String!) { loginUser(input: { login_id: $id, password: $password }) { user_id } }",
      { id: operator.login_id, password: operator.password },
    );
    expect(login.body.data?.loginUser?.user_id).toBe(operator.user_id);
    const token = await call(platform.baseUrl, "GET", "/v1/payment_intents/pi_unknown?payment_token=pt_unknown");
    expect(token.body.code).toBe("invalid_token");
  });
});
