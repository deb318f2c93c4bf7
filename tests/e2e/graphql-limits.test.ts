import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { demoUrls } from "../../apps/platform/src/demo";
import { logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

/** Issue 12: this ran the platform out of memory, for every tenant. */
const sixLevels = "{ merchants { nodes { stores { merchant { stores { merchant { stores { id } } } } } } } }";

/** Issue 14: about 1.5 KB, anonymous; the planner spent seconds on it and answered 500. */
const fragmentChain = (() => {
  const levels = 13;
  const fragments = Array.from({ length: levels }, (_, i) => {
    const next = i + 1 < levels ? `...F${i + 1}` : "id";
    return `fragment F${i} on Store { a: merchant { stores { ${next} } } b: merchant { stores { ${next} } } payment_intents_count }`;
  });
  return `query { stores { nodes { ...F0 } } }\n${fragments.join("\n")}`;
})();

const healthy = async (baseUrl: string) => (await fetch(`${baseUrl}/health`)).status === 200;

describe("GraphQL: one request never hurts the others", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let token: string;
  const storeQuery = () => `{ store(id: ${store.id}) { id name } }`;

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store();
    token = (await logIn(platform.baseUrl, await seed(platform).user("SYSTEM_OP", store))).access_token;
  });
  afterAll(() => platform?.close());

  it("refuses the six-level nesting with 400 before it runs, and keeps serving", async () => {
    const refused = await postGraphQL(platform.baseUrl, sixLevels, {}, token);
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]).toMatchObject({
      extensions: { code: "GRAPHQL_VALIDATION_FAILED", details: { constraint: "max_depth" } },
    });
    expect(await healthy(platform.baseUrl)).toBe(true);
    const small = await postGraphQL(platform.baseUrl, storeQuery(), {}, token);
    expect(small).toMatchObject({ status: 200, body: { data: { store: { id: store.id } } } });
  });

  it("refuses the anonymous fragment chain at once with 400, and keeps serving", async () => {
    expect(fragmentChain.length).toBeGreaterThan(1400);
    const started = performance.now();
    const refused = await postGraphQL(platform.baseUrl, fragmentChain);
    expect(refused.status).toBe(400);
    expect(performance.now() - started).toBeLessThan(2000); // the planner alone took 4 to 22 s
    expect(await healthy(platform.baseUrl)).toBe(true);
  });

  it("refuses 2,000 aliases, too many tokens and too many directives with 400", async () => {
    const aliases = Array.from({ length: 2000 }, (_, i) => `a${i}: id`).join(" ");
    const directives = "id @include(if: true) ".repeat(30);
    for (const query of [
      `{ store(id: ${store.id}) { ${aliases} } }`,
      `{ store(id: ${store.id}) { ${"id ".repeat(1500)} } }`,
      `{ store(id: ${store.id}) { ${directives} } }`,
    ]) {
      expect((await postGraphQL(platform.baseUrl, query, {}, token)).status).toBe(400);
    }
    expect((await postGraphQL(platform.baseUrl, storeQuery(), {}, token)).status).toBe(200);
  });

  it("refuses a variable PostgreSQL cannot store with 400 naming it", async () => {
    const query = "query ($code: String!) { activationStatus(activation_code: $code) { __typename } }";
    for (const code of ["nul \u0000", "lone \ud800"]) {
      const { status, body } = await postGraphQL(platform.baseUrl, query, { code });
      expect(status).toBe(400);
      expect(body.errors?.[0]?.extensions).toEqual({
        code: "INVALID_REQUEST",
        details: { field: "code", constraint: "text" },
      });
    }
  });

  it("names no subgraph and shows no introspection or suggestions outside development", async () => {
    const missing = await postGraphQL(platform.baseUrl, "{ store(id: 999999) { id } }", {}, token);
    expect(missing.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(JSON.stringify(missing.body)).not.toMatch(/serviceName|portal|stacktrace/);
    const introspection = await postGraphQL(platform.baseUrl, "{ __schema { types { name } } }", {}, token);
    expect(introspection.status).toBe(400);
    const typo = await postGraphQL(platform.baseUrl, "{ store(id: 1) { nam } }", {}, token);
    expect(typo.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
  });

  it("takes JSON POSTs and preflighted GET queries only: no CSRF-able request, no batch, no GET mutation", async () => {
    const url = `${platform.baseUrl}/graphql`;
    const auth = { authorization: `Bearer ${token}` };
    const get = (query: string, headers: Record<string, string>) =>
      fetch(`${url}?query=${encodeURIComponent(query)}`, { headers: { ...auth, ...headers } });
    const simplePost = (type: string, body: string) =>
      fetch(url, { method: "POST", headers: { ...auth, "content-type": type }, body });
    // A form a foreign page could submit: Apollo's CSRF prevention refuses it (the edge parses form bodies).
    expect(
      (await simplePost("application/x-www-form-urlencoded", `query=${encodeURIComponent(storeQuery())}`)).status,
    ).toBe(400);
    // The edge reads only JSON and form bodies.
    expect((await simplePost("text/plain", JSON.stringify({ query: storeQuery() }))).status).toBe(415);
    expect((await get(storeQuery(), {})).status).toBe(400);
    const preflighted = await get(storeQuery(), { "apollo-require-preflight": "true" });
    expect(preflighted.status).toBe(200);
    expect(((await preflighted.json()) as any).data.store.id).toBe(store.id);
    const mutation = await get(`mutation { deactivateStore(id: ${store.id}) { id } }`, {
      "apollo-require-preflight": "true",
    });
    expect(mutation.status).toBe(405);
    const batch = await fetch(url, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify([{ query: storeQuery() }, { query: storeQuery() }]),
    });
    expect(batch.status).toBe(400);
  });

  it("applies the document limits over graphql-ws too, and the connection goes on", async () => {
    const client = createClient({
      url: demoUrls(platform.baseUrl).graphql_ws_url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${token}` },
    });
    const run = (query: string, variables?: Record<string, unknown>) =>
      new Promise<any>((resolve, reject) => {
        client.subscribe({ query, variables }, { next: resolve, error: reject, complete: () => {} });
      });
    try {
      for (const query of [sixLevels, fragmentChain, `{ store(id: 1) { ${"id ".repeat(1500)} } }`]) {
        const errors = await run(query).then(
          () => [],
          (refused) => refused,
        );
        expect(errors[0]?.extensions?.code).toMatch(/^GRAPHQL_(VALIDATION|PARSE)_FAILED$/);
      }
      const unstorable = await run(
        "query ($code: String!) { activationStatus(activation_code: $code) { __typename } }",
        {
          code: "nul \u0000",
        },
      );
      expect(unstorable.errors?.[0]?.extensions).toEqual({
        code: "INVALID_REQUEST",
        details: { field: "code", constraint: "text" },
      });
      expect((await run(storeQuery())).data.store.id).toBe(store.id);
    } finally {
      await client.dispose();
    }
  });
});

describe("graphql-ws operations count against the API limit", () => {
  const LIMIT = 20;
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false, rateLimits: { api: LIMIT } });
  });
  afterAll(() => platform?.close());

  it("closes a connection flooding 1,200 operations with 4429, and keeps serving", async () => {
    const socket = new WebSocket(`${platform.baseUrl.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
    const answered: string[] = [];
    const closed = new Promise<number>((resolve) => socket.on("close", (code) => resolve(code)));
    socket.on("message", (data) => {
      const message = JSON.parse(String(data));
      if (message.type === "connection_ack") {
        for (let id = 0; id < 1200; id++) {
          socket.send(JSON.stringify({ id: String(id), type: "subscribe", payload: { query: "{ __typename }" } }));
        }
      }
      if (message.type === "next") answered.push(message.id);
    });
    socket.on("open", () => socket.send(JSON.stringify({ type: "connection_init" })));
    expect(await closed).toBe(4429);
    expect(answered.length).toBeLessThanOrEqual(LIMIT);
    expect(await healthy(platform.baseUrl)).toBe(true);
  });
});
