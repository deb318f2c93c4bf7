import type { JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAssertion, deviceToken, humanToken, TOKEN_PATH, tokenRequest } from "../support/device";
import { uniqueCode } from "../support/environment";
import {
  callJson,
  everyEdgeAnswers,
  logIn,
  postGraphQL,
  startTestPlatform,
  type TestPlatform,
} from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

/** Every edge instance follows revocations every second; under load allow a few. */
const WITHIN = { timeout: 15_000, interval: 250 };

describe("sessions end at logout, deactivation and suspension, at every edge instance", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let operator: string;

  const call = (method: string, path: string, token: string, body?: unknown) =>
    callJson(platform.baseUrl, method, path, token, body);

  /** A REST read and a GraphQL read of the test's store, as a person of that store makes them. */
  const readStore = async (token: string) => ({
    rest: (await call("GET", `/api/v1/stores/${store.id}`, token)).status,
    graphql: (
      await postGraphQL(platform.baseUrl, "query ($id: Int!) { store(id: $id) { id } }", { id: store.id }, token)
    ).status,
  });

  /** A staff member of the store of its own, logged in with its PIN. */
  async function loggedInStaff() {
    const user = await seed(platform).user("STAFF", store);
    const tokens = await logIn(platform.baseUrl, user);
    expect(await readStore(tokens.access_token)).toEqual({ rest: 200, graphql: 200 });
    return { user, tokens };
  }

  const tokenStatus = async (device: { client_id: string; private_jwk: JWK }) => {
    const assertion = await clientAssertion(device.private_jwk, device.client_id, `${platform.baseUrl}${TOKEN_PATH}`);
    const response = await tokenRequest(platform.baseUrl, assertion);
    return { status: response.status, body: (await response.json()) as any };
  };

  const takeOrder = (token: string) =>
    call("POST", "/orders", token, {
      order_type: "dine_in",
      table_number: uniqueCode("T"),
      items: [{ sequence: 1, item_name: "Ramen", quantity: 1, unit_price: 980 }],
    });

  beforeAll(async () => {
    // Without the demo tenant: each test seeds what it needs.
    platform = await startTestPlatform({ demo: false });
    store = await seed(platform).store();
    operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
  });
  afterAll(() => platform?.close());

  it("refuses the access token of a logged-out user within seconds, over REST and GraphQL; others keep working", async () => {
    const leaving = await loggedInStaff();
    const staying = await loggedInStaff();
    expect((await call("POST", "/api/v1/auth/user/logout", leaving.tokens.access_token, {})).status).toBe(204);
    await expect.poll(() => readStore(leaving.tokens.access_token), WITHIN).toEqual({ rest: 401, graphql: 401 });
    const refused = await call("GET", `/api/v1/stores/${store.id}`, leaving.tokens.access_token);
    expect(refused.body).toMatchObject({ code: "unauthorized" });
    expect(await readStore(staying.tokens.access_token)).toEqual({ rest: 200, graphql: 200 });
  });

  it("ends only the impersonation when an admin logs out while acting as a user", async () => {
    const target = await loggedInStaff();
    const admin = await logIn(platform.baseUrl, await seed(platform).user("MERCHANT_ADMIN", store));
    const acting = await call("POST", "/api/v1/auth/admin/impersonate", admin.access_token, {
      target_user_id: target.user.user_id,
    });
    expect(acting.status).toBe(200);
    const impersonation = acting.body.access_token as string;
    expect(await readStore(impersonation)).toEqual({ rest: 200, graphql: 200 });

    // As the console's "Log out" sent it: the impersonation's token, and no refresh token (it has none).
    expect((await call("POST", "/api/v1/auth/user/logout", impersonation, {})).status).toBe(204);
    await expect.poll(() => readStore(impersonation), WITHIN).toEqual({ rest: 401, graphql: 401 });
    // The user's own session and the admin's are untouched: their tokens work, their refresh tokens too.
    expect(await readStore(target.tokens.access_token)).toEqual({ rest: 200, graphql: 200 });
    expect(await readStore(admin.access_token)).toEqual({ rest: 200, graphql: 200 });
    for (const refresh_token of [target.tokens.refresh_token, admin.refresh_token]) {
      const renewed = await call("POST", "/api/v1/auth/user/token/refresh", admin.access_token, { refresh_token });
      expect(renewed.status).toBe(200);
    }
  });

  it("refuses the access tokens of a session right after its refresh token is replayed; its other sessions go on", async () => {
    const { user, tokens } = await loggedInStaff();
    const elsewhere = await logIn(platform.baseUrl, user);
    const refresh = (refresh_token: string) =>
      call("POST", "/api/v1/auth/user/token/refresh", elsewhere.access_token, { refresh_token });
    const first = await refresh(tokens.refresh_token);
    expect(first.status).toBe(200);
    expect(await readStore(first.body.access_token)).toEqual({ rest: 200, graphql: 200 });
    // The replay: one of the two holders of the first refresh token is not the user, and the session ends.
    expect(await refresh(tokens.refresh_token)).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    await expect.poll(() => readStore(first.body.access_token), WITHIN).toEqual({ rest: 401, graphql: 401 });
    expect(await readStore(tokens.access_token)).toEqual({ rest: 401, graphql: 401 });
    expect((await refresh(first.body.refresh_token)).status).toBe(401);
    expect(await readStore(elsewhere.access_token)).toEqual({ rest: 200, graphql: 200 });
  });

  it("refuses the access token of a deactivated user", async () => {
    const { user, tokens } = await loggedInStaff();
    expect((await call("DELETE", `/api/v1/users/${user.user_id}`, operator)).status).toBe(200);
    await expect.poll(() => readStore(tokens.access_token), WITHIN).toEqual({ rest: 401, graphql: 401 });
  });

  it("refuses a suspended terminal's token and gives it no new one", async () => {
    const terminal = await seed(platform).device(store);
    const other = await seed(platform).device(store);
    const token = await deviceToken(platform.baseUrl, terminal);
    const otherToken = await deviceToken(platform.baseUrl, other);
    expect((await call("GET", `/api/v1/terminals/${terminal.id}`, token)).status).toBe(200);
    expect((await call("POST", `/api/v1/terminals/${terminal.id}/suspend`, operator)).status).toBe(200);
    // Every edge instance hears of the suspension within about a second: all of them refuse before the order is tried.
    const everyEdgeRefuses = () =>
      everyEdgeAnswers(
        () => call("GET", `/api/v1/terminals/${terminal.id}`, token),
        (read) => read.status === 401,
      );
    await expect.poll(everyEdgeRefuses, WITHIN).toBe(true);
    expect((await takeOrder(token)).status).toBe(401);
    // The token endpoint answers in OAuth's error format (RFC 6749 §5.2).
    expect(await tokenStatus(terminal)).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    expect((await call("GET", `/api/v1/terminals/${other.id}`, otherToken)).status).toBe(200);
  });

  it("gives a terminal of a deactivated store no token, and its token takes no more orders", async () => {
    const closing = await seed(platform).store();
    const kept = await seed(platform).store({ merchant: closing.merchant });
    const terminal = await seed(platform).device(closing);
    const keptTerminal = await seed(platform).device(kept);
    const token = await deviceToken(platform.baseUrl, terminal);
    expect((await takeOrder(token)).status).toBe(201);
    expect((await call("DELETE", `/api/v1/stores/${closing.id}`, operator)).status).toBe(200);
    await expect.poll(async () => (await takeOrder(token)).status, WITHIN).toBe(401);
    expect(await tokenStatus(terminal)).toMatchObject({
      status: 401,
      body: { error: "invalid_client", error_description: expect.stringMatching(/store is inactive/) },
    });
    // The merchant's other store and its terminal are not touched.
    expect((await takeOrder(await deviceToken(platform.baseUrl, keptTerminal))).status).toBe(201);
  });
});
