import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoFile } from "../../apps/platform/src/demo";
import { deviceToken } from "../support/device";
import { uniqueCode } from "../support/environment";
import { call, signed } from "../support/gateway";
import { demoUser, logIn, postGraphQL, readDemo, startTestPlatform, type TestPlatform } from "../support/platform";

// The tenant isolation matrix: a second tenant ("away", its own PSP) beside the demo tenant ("home"), and every
// caller of the home tenant (L0 to L6 from real logins, the demo terminal's device token) plus the anonymous caller
// asking for each away resource over REST and GraphQL, nested fields and cross-subgraph entity references included.
// L0 reaches every tenant; everyone else gets 403 (the spec's tenant boundary); without a token it is 401.
// Subgraphs reached directly, without the gateway: tests/support/store-references.ts.

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
/** A foreign resource: 401 without a token, 200 for the platform operator, 403 for every tenant's caller. */
const foreign = Object.fromEntries(
  callers.map((who) => [who, who === "anonymous" ? 401 : who === "L0" ? 200 : 403]),
) as Record<Who, number>;

const graphqlStatus: Record<string, number> = { UNAUTHENTICATED: 401, forbidden: 403, not_found: 404 };

let platform: TestPlatform;
let demo: DemoFile;
const tokens = {} as Record<Exclude<Who, "anonymous" | "device">, string>;
let device = { token: "", at: 0 };
const away = { psp: 0, merchant: 0, store: 0, device: "", user: "", area: "" };

/** The device token lives 90 seconds; a fresh one for whatever the matrix still has to ask. */
async function tokenOf(who: Who): Promise<string | undefined> {
  if (who === "anonymous") return undefined;
  if (who !== "device") return tokens[who];
  if (Date.now() - device.at > 60_000)
    device = { token: await deviceToken(platform.baseUrl, demo.device), at: Date.now() };
  return device.token;
}

async function rest(who: Who, path: string) {
  const token = await tokenOf(who);
  const response = await fetch(`${platform.baseUrl}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function graphql(who: Who, query: string, variables: Record<string, unknown> = {}) {
  const { status, body } = await postGraphQL(platform.baseUrl, query, variables, await tokenOf(who));
  const code = body.errors?.[0]?.extensions?.code as string | undefined;
  return { status: status === 200 && code ? (graphqlStatus[code] ?? 500) : status, body };
}

const asL0 = async (method: string, path: string, body: unknown) => {
  const response = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${tokens.L0}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: never }).id;
};

beforeAll(async () => {
  platform = await startTestPlatform();
  demo = readDemo(platform.dataDir);
  for (const [tier, role] of Object.entries(roles)) {
    tokens[tier as keyof typeof roles] = (await logIn(platform.baseUrl, demoUser(demo, role))).access_token;
  }
  away.psp = await asL0("POST", "/api/v1/psps", { code: uniqueCode("P"), name: "away" });
  away.merchant = await asL0("POST", "/api/v1/merchants", { psp_id: away.psp, code: uniqueCode("M"), name: "away" });
  away.store = await asL0("POST", "/api/v1/stores", {
    merchant_id: away.merchant,
    code: uniqueCode("S"),
    name: "away",
  });
  away.device = await asL0("POST", "/api/v1/terminals", {
    serial_number: uniqueCode("SN"),
    model: "m",
    manufacturer: "x",
    store_id: away.store,
  });
  away.user = await asL0("POST", "/api/v1/users", {
    role: "STORE_MANAGER",
    store_id: away.store,
    password: "a long enough password",
  });
  const area = await graphql(
    "L0",
    'mutation($merchant: Int!) { createArea(merchant_id: $merchant, name: "away") { id } }',
    {
      merchant: away.merchant,
    },
  );
  away.area = area.body.data.createArea.id;
  await graphql(
    "L0",
    "mutation($store: Int!, $area: ID) { assignStoreToArea(store_id: $store, area_id: $area) { id } }",
    {
      store: away.store,
      area: away.area,
    },
  );
});
afterAll(() => platform?.close());

describe("a foreign resource by id", () => {
  const cases: [string, (who: Who) => Promise<{ status: number }>][] = [
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

  for (const [name, ask] of cases) {
    it(name, async () => {
      const outcome = {} as Record<Who, number>;
      for (const who of callers) outcome[who] = (await ask(who)).status;
      expect(outcome).toEqual(foreign);
    });
  }
});

describe("a foreign POS order and bill by id", () => {
  // POS rows of a store out of reach are not found, like rows that do not exist; an L0 reads them.
  const notFound = Object.fromEntries(
    callers.map((who) => [who, who === "anonymous" ? 401 : who === "L0" ? 200 : 404]),
  ) as Record<Who, number>;
  const ids = { order: "", bill: "" };
  beforeAll(async () => {
    ids.order = await asL0("POST", "/api/v1/orders", {
      store_id: away.store,
      order_type: "takeaway",
      items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 300 }],
    });
    const manager = await rest("L0", `/api/v1/users/${away.user}`);
    ids.bill = await asL0("POST", "/api/v1/bills", {
      order_id: ids.order,
      staff_code: manager.body.login_id,
      tax_percentage: 10,
    });
  });

  const cases: [string, (who: Who) => Promise<{ status: number }>][] = [
    ["REST GET /orders/{id}", (who) => rest(who, `/api/v1/orders/${ids.order}`)],
    ["REST GET /bills/{id}", (who) => rest(who, `/api/v1/bills/${ids.bill}`)],
    ["GraphQL order", (who) => graphql(who, "query($id: ID!) { order(id: $id) { id } }", { id: ids.order })],
    ["GraphQL bill", (who) => graphql(who, "query($id: ID!) { bill(id: $id) { id } }", { id: ids.bill })],
  ];
  for (const [name, ask] of cases) {
    it(name, async () => {
      const outcome = {} as Record<Who, number>;
      for (const who of callers) outcome[who] = (await ask(who)).status;
      expect(outcome).toEqual(notFound);
    });
  }

  it("REST GET /orders and /bills never list them", async () => {
    for (const who of callers.filter((w) => w !== "anonymous" && w !== "L0")) {
      for (const path of ["/api/v1/orders?limit=100", "/api/v1/bills?limit=100"]) {
        const { status, body } = await rest(who, path);
        const listed = status === 200 ? (body as { id: string }[]).map((row) => row.id) : [];
        expect(listed).not.toContain(ids.order);
        expect(listed).not.toContain(ids.bill);
      }
    }
  });
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
    ]);
  const restList = async (who: Who, path: string, type: string) => {
    const { status, body } = await rest(who, path);
    const items = (Array.isArray(body) ? body : (body.data ?? [])) as { id: unknown }[];
    return { status, found: new Set(items.map((item) => `${type}:${item.id}`)) };
  };
  const graphqlList = async (who: Who, query: string) => {
    const { status, body } = await graphql(who, query, { home: demo.store.id });
    return { status, found: objects(body.data) };
  };

  // [name, ask, whether L0's answer holds the away tenant (so the check can see a leak)]
  const lists: [string, (who: Who) => Promise<{ status: number; found: Set<string> }>, boolean][] = [
    ["REST GET /psps", (who) => restList(who, "/api/v1/psps?limit=100", "Psp"), true],
    ["REST GET /merchants", (who) => restList(who, "/api/v1/merchants?limit=100", "Merchant"), true],
    ["REST GET /stores", (who) => restList(who, "/api/v1/stores?limit=100", "Store"), true],
    ["REST GET /terminals", (who) => restList(who, "/api/v1/terminals?limit=100", "Device"), true],
    ["REST GET /users", (who) => restList(who, "/api/v1/users?limit=100", "User"), true],
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
    const created = await signed(platform.baseUrl, demo.partner, "POST", "/v1/payment_intents", {
      amount: 1200,
      currency: "JPY",
      payment_method_types: ["qr_mpm"],
      merchant_ref_id: `order-${randomUUID()}`,
      merchant_store_id: demo.store.code,
    });
    expect(created.status).toBe(201);
    const { id } = created.body;

    const partner = await platform.partners.createPartner("away partner");
    const other = await platform.partners.issueApiKey(partner.id);
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
    const operator = demoUser(demo, "SYSTEM_OP");
    const login = await postGraphQL(
      platform.baseUrl,
      "mutation($id: String, $password: String!) { loginUser(login_id: $id, password: $password) { user_id } }",
      { id: operator.login_id, password: operator.password },
    );
    expect(login.body.data?.loginUser?.user_id).toBe(operator.user_id);
    const token = await call(platform.baseUrl, "GET", "/v1/payment_intents/pi_unknown?payment_token=pt_unknown");
    expect(token.body.code).toBe("invalid_token");
  });
});
