import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoUser } from "../../apps/platform/src/demo";
import { humanToken } from "../support/device";
import { uniqueCode } from "../support/environment";
import {
  callJson,
  everyEdgeAnswers,
  logIn,
  postGraphQL,
  postJson,
  startTestPlatform,
  type TestPlatform,
} from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

/** Every edge instance follows revocations every second; under load allow a few. */
const WITHIN = { timeout: 15_000, interval: 250 };

// Issue 32: the staff of a deactivated store still logged in with their PIN and took orders and bills, and a payment
// there answered 500. They are now refused as the store's terminals are: no token, and the tokens they held name the
// inactive store on every route; a payment that still reaches the gateway is a 409 naming the store.
describe("a deactivated store's people", () => {
  let platform: TestPlatform;
  let operator: string;

  const call = (method: string, path: string, token: string, body?: unknown) =>
    callJson(platform.baseUrl, method, path, token, body);
  const order = (table = uniqueCode("T")) => ({
    order_type: "dine_in",
    table_number: table,
    items: [{ sequence: 1, item_name: "Ramen", quantity: 1, unit_price: 980 }],
  });
  const createOrder = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) { id } }`;
  const rowsOf = async (store: SeededStore) => ({
    orders: await platform.pos.prisma.order.count({ where: { store_id: store.id } }),
    bills: await platform.pos.prisma.bill.count({ where: { store_id: store.id } }),
    payments: await platform.pos.prisma.payment.count({ where: { store_id: store.id } }),
  });
  const deactivate = async (store: SeededStore) =>
    expect((await call("DELETE", `/api/v1/stores/${store.id}`, operator)).status).toBe(200);
  const closedShape = (store: SeededStore) => ({
    status: 403,
    body: { code: "forbidden", details: { field: "store_id", constraint: "store_active", store_id: store.id } },
  });

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
  });
  afterAll(() => platform?.close());

  it("refuses their held tokens on every route, REST and GraphQL, naming the store; nothing is written", async () => {
    const store = await seed(platform).store();
    const kept = await seed(platform).store({ merchant: store.merchant });
    const staff = await logIn(platform.baseUrl, await seed(platform).user("STAFF", store));
    const leader = await logIn(platform.baseUrl, await seed(platform).user("STAFF_LEADER", store));
    const keptStaff = await logIn(platform.baseUrl, await seed(platform).user("STAFF", kept));
    const made = await call("POST", "/orders", staff.access_token, order());
    expect(made.status).toBe(201);
    await deactivate(store);
    const refused = { code: "unauthorized", details: { reason: "store_inactive", store_id: store.id } };
    // Every edge instance hears of the deactivation within about a second: reads at once, spread over the instances
    // by their connections, all refused, before any write is tried.
    const everyEdgeRefuses = (token: string) =>
      everyEdgeAnswers(
        () => call("GET", "/orders", token),
        (read) => read.status === 401 && read.body?.details?.reason === "store_inactive",
      );
    for (const token of [staff.access_token, leader.access_token])
      await expect.poll(() => everyEdgeRefuses(token), WITHIN).toBe(true);
    const before = await rowsOf(store);
    for (const token of [staff.access_token, leader.access_token]) {
      expect(await call("POST", "/orders", token, order())).toMatchObject({ status: 401, body: refused });
      expect(
        await call("POST", "/bills", token, { order_id: made.body.id, staff_code: "STF-XXX-000", tax_percentage: 10 }),
      ).toMatchObject({ status: 401, body: refused });
      const graphql = await postGraphQL(platform.baseUrl, createOrder, { input: order() }, token);
      expect(graphql.status).toBe(401);
      expect(graphql.body.errors?.[0]?.extensions).toMatchObject({
        code: "UNAUTHENTICATED",
        details: { reason: "store_inactive", store_id: store.id },
      });
    }
    expect(await rowsOf(store)).toEqual(before);
    // The merchant's other store and its staff are not touched.
    expect((await call("POST", "/orders", keptStaff.access_token, order())).status).toBe(201);
  });

  it("answers a payment in a deactivated store 409 naming the store, not 500, and records nothing", async () => {
    const store = await seed(platform).store({ sells: true });
    const staff = await logIn(platform.baseUrl, await seed(platform).user("STAFF", store));
    const staffCode = (await seed(platform).user("STAFF", store)).login_id;
    const made = await call("POST", "/orders", staff.access_token, order());
    const bill = await call("POST", "/bills", staff.access_token, {
      order_id: made.body.id,
      staff_code: staffCode,
      tax_percentage: 10,
    });
    expect(bill.status).toBe(201);
    // Above the store, a merchant admin still reaches it (to reactivate it, to read its history).
    const admin = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
    });
    await deactivate(store);
    await expect
      .poll(async () => (await platform.payments.prisma.store.findUnique({ where: { id: store.id } }))?.is_active)
      .toBe(false);
    const before = await rowsOf(store);
    for (const type of ["CREDIT_CARD", "QR", "CASH"]) {
      const paid = await call("POST", "/payments", admin, {
        bill_id: bill.body.id,
        amount: bill.body.total_amount,
        payment_method: type === "QR" ? { type, provider: "sandbox" } : { type },
        ...(type === "CASH" ? { cash_received: bill.body.total_amount } : {}),
      });
      expect(paid, type).toMatchObject({
        status: 409,
        body: { code: "invalid_state", details: { field: "store_id", constraint: "store_active", store_id: store.id } },
      });
    }
    const graphql = await postGraphQL(
      platform.baseUrl,
      `mutation ($input: CreatePosPaymentInput!) { createPosPayment(input: $input) { payment { id } } }`,
      {
        input: {
          bill_id: bill.body.id,
          amount: bill.body.total_amount,
          payment_method: { type: "CREDIT_CARD" },
        },
      },
      admin,
    );
    expect(graphql.body.errors?.[0]?.extensions).toMatchObject({
      code: "INVALID_STATE",
      details: { field: "store_id", constraint: "store_active", store_id: store.id },
    });
    expect(await rowsOf(store)).toEqual(before);
  });

  it("gives them no new token: PIN login, password login and refresh are 403 naming the store", async () => {
    const store = await seed(platform).store();
    const kept = await seed(platform).store({ merchant: store.merchant });
    const staff = await seed(platform).user("STAFF", store);
    const manager: DemoUser = await seed(platform).user("STORE_MANAGER", store);
    const session = await logIn(platform.baseUrl, staff);
    await deactivate(store);
    const pin = await postJson(platform.baseUrl, "/api/v1/auth/user/pin-login", {
      login_id: staff.login_id,
      pin: staff.pin,
    });
    expect(pin).toMatchObject(closedShape(store));
    expect(pin.body.message).toMatch(new RegExp(`store is inactive \\(store ${store.id}\\)`));
    const pinGraphql = await postGraphQL(
      platform.baseUrl,
      "mutation ($input: PinLoginInput!) { pinLogin(input: $input) { access_token } }",
      { input: { login_id: staff.login_id, pin: staff.pin } },
    );
    expect(pinGraphql.body.errors?.[0]?.extensions).toMatchObject({
      code: "FORBIDDEN",
      details: { constraint: "store_active", store_id: store.id },
    });
    const password = await postJson(platform.baseUrl, "/api/v1/auth/user/login", {
      login_id: manager.login_id,
      password: manager.password,
    });
    expect(password).toMatchObject(closedShape(store));
    const refresh = await postJson(platform.baseUrl, "/api/v1/auth/user/token/refresh", {
      refresh_token: session.refresh_token,
    });
    expect(refresh).toMatchObject(closedShape(store));
    // A right PIN refused for the store is no failed attempt: the staff member is not locked for it.
    const user = await platform.portal.prisma.user.findUniqueOrThrow({ where: { login_id: staff.login_id } });
    expect(user).toMatchObject({ status: "active", failed_pins: 0, pin_locked_at: null });
    // The merchant's other store's staff still log in.
    await expect(logIn(platform.baseUrl, await seed(platform).user("STAFF", kept))).resolves.toMatchObject({
      access_token: expect.any(String),
    });
  });
});
