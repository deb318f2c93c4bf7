import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { humanToken } from "../support/device";
import { clusterWiring } from "../support/environment";
import { signed } from "../support/gateway";
import { unusedLoginId } from "../support/identity";
import { loggedDuring } from "../support/log";
import {
  getJson as get,
  logIn,
  postGraphQL,
  postJson,
  startTestPlatform,
  type TestPlatform,
} from "../support/platform";
import { type SeededPartner, type SeededStore, seed } from "../support/seed";

/** Sends raw bytes and returns the raw answer: for requests no HTTP client would send. */
function rawRequest(baseUrl: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

/** A GET from a chosen loopback address (127.0.0.0/8 all reach the platform), so a test can act as many IPs. */
function getFrom(localAddress: string, url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", reject).end();
  });
}

// In-process only: the development mailbox is the embedded platform's memory.
describe.skipIf(clusterWiring)("the development mailbox", () => {
  let platform: TestPlatform;
  let store: SeededStore;

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false, devMailbox: true });
    store = await seed(platform).store();
  });
  afterAll(() => platform?.close());

  it("keeps an e-mail MFA code from anyone but a system operator, and out of the log", async () => {
    const email = `victim-${Date.now()}@example.com`;
    const password = "the victim's leaked password";
    await platform.portal.users.createUser({
      role: "STORE_MANAGER",
      store_id: store.id,
      password,
      mfa_channel: "email",
      email,
    });
    // The attacker knows only the password.
    const login = await postJson(platform.baseUrl, "/api/v1/auth/user/login", { email, password });
    const logged = await loggedDuring(async () => {
      const sent = await postJson(platform.baseUrl, "/api/v1/auth/user/mfa/send", { user_id: login.body.user_id });
      expect(sent.body).toMatchObject({ sent: true, channel: "email" });
    });

    const path = "/api/v1/dev/messages";
    expect(await get(platform.baseUrl, path)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    const manager = await humanToken(platform.portal, {
      role: "STORE_MANAGER",
      merchant_id: store.merchant_id,
      store_id: store.id,
    });
    expect(await get(platform.baseUrl, path, manager)).toMatchObject({ status: 403, body: { code: "forbidden" } });
    const psp = await humanToken(platform.portal, { role: "PSP_ADMIN", psp_id: store.psp_id });
    expect((await get(platform.baseUrl, path, psp)).status).toBe(403);

    const operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
    const read = await get(platform.baseUrl, path, operator);
    expect(read.status).toBe(200);
    const code = /(\d{6})/.exec(read.body.data.find((m: { to: string[] }) => m.to.includes(email)).text)![1]!;
    expect(logged).not.toContain(code);
  });
});

describe("the edge's answers to bad text, odd requests and secrets", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let partner: SeededPartner;
  let manager: string;

  beforeAll(async () => {
    // A header timeout a test can wait for (10 s by default); every other request sends its headers at once.
    platform = await startTestPlatform({ demo: false, httpTimeouts: { headersMs: 1000 } });
    store = await seed(platform).store();
    partner = await seed(platform).partner();
    manager = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
    });
  });
  afterAll(() => platform?.close());

  const badText = { code: "invalid_request", details: { constraint: "text" } };

  it("has no development mailbox unless it is configured", async () => {
    const operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
    expect(await get(platform.baseUrl, "/api/v1/dev/messages", operator)).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
  });

  it("refuses a NUL or a lone surrogate in any text with 400 naming the field, never 500", async () => {
    const post = (path: string, body: unknown, token?: string) => postJson(platform.baseUrl, path, body, token);
    const cases: [Promise<{ status: number; body: any }>, string][] = [
      [post("/api/v1/auth/user/login", { login_id: "SYS-\u0000", password: "x" }), "login_id"],
      [post("/auth/user/login", { email: "a\ud800@example.com", password: "x" }), "email"],
      [post("/api/v1/auth/user/pin-login", { login_id: "STF-001-\udc00", pin: "123456" }), "login_id"],
      [post("/api/v1/stores", { merchant_id: store.merchant_id, code: "S-NUL", name: "a\u0000b" }, manager), "name"],
      [post("/api/v1/users", { role: "STAFF", name: "x", metadata: { "\ud800": 1 } }, manager), "metadata.\ud800"],
      [get(platform.baseUrl, "/api/v1/users?role=%00", manager), "role"],
      [get(platform.baseUrl, "/api/v1/users/%00", manager), "id"],
      [get(platform.baseUrl, "/api/v1/users/%ED%A0%80", manager), "id"],
      [
        signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
          amount: 100,
          currency: "JPY",
          payment_method_types: ["cash"],
          merchant_ref_id: "order-\u0000",
          merchant_store_id: partner.store_code,
        }),
        "merchant_ref_id",
      ],
      [signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?merchant_ref_id=%00"), "merchant_ref_id"],
    ];
    for (const [answer, field] of cases) {
      const { status, body } = await answer;
      expect({ field, status, body }).toMatchObject({ status: 400, body: { ...badText, details: { field } } });
    }
    const form = await fetch(`${platform.baseUrl}/api/v1/auth/device/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_assertion=%00",
    });
    expect(form.status).toBe(400);
    expect(await form.json()).toMatchObject({ details: { field: "client_assertion", constraint: "text" } });
  });

  it("says what is wrong with a REST field in REST terms, not GraphQL's", async () => {
    const wrongType = await postJson(platform.baseUrl, "/api/v1/auth/user/login", { login_id: 5, password: "x" });
    expect(wrongType).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "login_id", constraint: "type" } },
    });
    const missing = await postJson(platform.baseUrl, "/api/v1/auth/user/login", { login_id: "SYS-AAAA" });
    expect(missing.body).toMatchObject({ details: { field: "password", constraint: "required" } });
    const nested = await postJson(platform.baseUrl, "/api/v1/users", { role: "STAFF", name: 5 }, manager);
    expect(nested.body).toMatchObject({ details: { field: "name", constraint: "type" } });
    for (const { body } of [wrongType, missing, nested]) expect(body.message).not.toMatch(/Variable|\$|GraphQL/);
  });

  it("answers an over-long URL with 431 and malformed HTTP with 400, as JSON in the error format", async () => {
    const long = await fetch(`${platform.baseUrl}/api/v1/users?role=${"a".repeat(20_000)}`);
    expect(long.status).toBe(431);
    expect(long.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await long.json()).toMatchObject({ code: "headers_too_large", details: { limit: expect.any(Number) } });
    const garbage = await rawRequest(platform.baseUrl, "NOT HTTP AT ALL\r\n\r\n");
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.slice(garbage.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "invalid_request" });
  });

  it("closes a connection whose request line and headers never finish within the header timeout", async () => {
    const { hostname, port } = new URL(platform.baseUrl);
    const started = Date.now();
    let answer = "";
    const socket = connect(Number(port), hostname, () =>
      socket.write("GET /health HTTP/1.1\r\nHost: edge\r\nX-Slow: "),
    );
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    await new Promise((resolve) => socket.once("close", resolve));
    // One second of timeout and at most one second until Node's next check, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(8000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "request_timeout" });
  });

  it("sends nosniff on every response and no-store on everything but public keys", async () => {
    const staffMember = await seed(platform).user("STAFF", store);
    const staff = await logIn(platform.baseUrl, staffMember);
    const answers = [
      await fetch(`${platform.baseUrl}/health`),
      await fetch(`${platform.baseUrl}/nowhere`),
      await fetch(`${platform.baseUrl}/v1/payment_intents`),
      await fetch(`${platform.baseUrl}/api/v1/auth/user/pin-login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ login_id: staffMember.login_id, pin: staffMember.pin }),
      }),
      await fetch(`${platform.baseUrl}/api/v1/auth/user/token/refresh`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: staff.refresh_token }),
      }),
      await fetch(`${platform.baseUrl}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${staff.access_token}` },
        body: JSON.stringify({ query: "{ stores { nodes { id } } }" }),
      }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 401, 200, 200, 200]);
    for (const answer of answers) {
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("cache-control")).toBe("no-store");
    }
    const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
      amount: 100,
      currency: "JPY",
      payment_method_types: ["qr_mpm"],
      merchant_ref_id: `headers-${Date.now()}`,
      merchant_store_id: partner.store_code,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const jwks = await fetch(`${platform.baseUrl}/api/v1/jwks/human`);
    expect(jwks.headers.get("x-content-type-options")).toBe("nosniff");
    expect(jwks.headers.get("cache-control")).toBe("public, max-age=300");
  });

  it("locks an unknown login id after five failures like a known one, over REST and GraphQL", async () => {
    const known = await platform.portal.users.createUser({
      role: "STORE_MANAGER",
      store_id: store.id,
      password: "the right password",
    });
    const unknown = unusedLoginId(known.login_id);
    const passwordTries = async (login_id: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push(
          (await postJson(platform.baseUrl, "/api/v1/auth/user/login", { login_id, password: "no" })).status,
        );
      }
      return statuses;
    };
    expect(await passwordTries(known.login_id)).toEqual([401, 401, 401, 401, 401, 423]);
    expect(await passwordTries(unknown)).toEqual([401, 401, 401, 401, 401, 423]);

    const pinTries = async (login_id: string) => {
      const codes: string[] = [];
      for (let i = 0; i < 6; i++) {
        const { body } = await postGraphQL(
          platform.baseUrl,
          'mutation($login_id: String!) { pinLogin(input: { login_id: $login_id, pin: "000000" }) { access_token } }',
          { login_id },
        );
        codes.push(body.errors?.[0]?.extensions?.code);
      }
      return codes;
    };
    const staff = (await seed(platform).user("STAFF_LEADER", store)).login_id;
    const knownCodes = await pinTries(staff);
    expect(new Set(knownCodes.slice(0, 5)).size).toBe(1);
    expect(knownCodes[5]).toBe("LOCKED");
    expect(await pinTries(unusedLoginId(staff))).toEqual(knownCodes);
  });
});

describe("the API gateway limit, per user and per IP", () => {
  const LIMIT = 5;
  // A fixed clock: every request falls in the same one-minute window.
  const now = new Date();
  let platform: TestPlatform;
  let home: SeededStore;
  let store: string;
  const userToken = () =>
    humanToken(platform.portal, { role: "STORE_MANAGER", merchant_id: home.merchant_id, store_id: home.id });

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false, clock: () => now, rateLimits: { api: LIMIT } });
    home = await seed(platform).store();
    store = `${platform.baseUrl}/api/v1/stores/${home.id}`;
  });
  afterAll(() => platform?.close());

  it("limits a second user on the same IP by the IP's budget", async () => {
    const [first, second] = [await userToken(), await userToken()];
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push(await getFrom("127.0.0.2", store, first));
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
    expect(await getFrom("127.0.0.2", store, second)).toBe(429);
    expect(await getFrom("127.0.0.3", store, second)).toBe(200);
  });

  it("limits one user by its own budget, whatever its IPs", async () => {
    const token = await userToken();
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i++) statuses.push(await getFrom(`127.0.1.${i + 1}`, store, token));
    expect(statuses).toEqual([...Array(LIMIT).fill(200), 429]);
  });
});
