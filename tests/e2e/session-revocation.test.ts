import type { JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAssertion, deviceToken, humanToken, TOKEN_PATH, tokenRequest } from "../support/device";
import { uniqueCode } from "../support/environment";
import { logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

/** Every edge instance follows revocations every second; under load allow a few. */
const WITHIN = { timeout: 15_000, interval: 250 };

describe("sessions end at logout, deactivation and suspension, at every edge instance", () => {
  let platform: TestPlatform;
  let store: SeededStore;
  let operator: string;

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json().catch(() => null)) as any };
  };

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
    await expect
      .poll(async () => (await call("GET", `/api/v1/terminals/${terminal.id}`, token)).status, WITHIN)
      .toBe(401);
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
