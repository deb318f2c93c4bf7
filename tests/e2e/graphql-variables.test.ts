import { createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type DemoUser, demoUrls } from "../../apps/platform/src/demo";
import { uniqueCode } from "../support/environment";
import { logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededDevice, type SeededStore, seed } from "../support/seed";

const updateStore = "mutation($id: Int!, $input: UpdateStoreInput!) { updateStore(id: $id, input: $input) { id } }";
const storeName = "query($id: Int!) { store(id: $id) { name } }";

describe("GraphQL: a variable it refuses names its field", () => {
  let platform: TestPlatform;
  let homeStore: SeededStore;
  let device: SeededDevice;
  let staff: DemoUser;
  let token: string;

  const rest = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    homeStore = await seed(platform).store();
    device = await seed(platform).device(homeStore);
    staff = await seed(platform).user("STAFF", homeStore);
    token = (await logIn(platform.baseUrl, await seed(platform).user("SYSTEM_OP", homeStore))).access_token;
  });
  afterAll(() => platform?.close());

  it("answers 400 invalid_request with the path in the variables, and changes nothing", async () => {
    const before = (await postGraphQL(platform.baseUrl, storeName, { id: homeStore.id }, token)).body.data.store.name;
    const cases = [
      [{ status: "closed" }, "input.status", "enum"],
      [{ enabled_payment_methods: ["qr_mpm", "bitcoin"] }, "input.enabled_payment_methods.1", "enum"],
      [{ address: { city: 5 } }, "input.address.city", "type"],
      [{ operating_hours: { mon: [{ open: "09:00" }] } }, "input.operating_hours.mon.0.close", "required"],
      [{ colour: "red" }, "input.colour", "unknown_field"],
      [{ table_assignments: "A1" }, "input.table_assignments", "type"],
    ] as const;
    for (const [input, field, constraint] of cases) {
      // A valid change beside the refused one: the operation must not run at all.
      const variables = { id: homeStore.id, input: { name: "Renamed", ...input } };
      const { status, body } = await postGraphQL(platform.baseUrl, updateStore, variables, token);
      expect({ input, status, data: body.data, extensions: body.errors?.[0]?.extensions }).toEqual({
        input,
        status: 400,
        data: undefined,
        extensions: { code: "INVALID_REQUEST", details: { field, constraint } },
      });
      expect(body.errors?.[0]?.message).toMatch(new RegExp(`^${field.replaceAll(".", "\\.")} `));
    }
    const after = (await postGraphQL(platform.baseUrl, storeName, { id: homeStore.id }, token)).body.data.store.name;
    expect(after).toBe(before);
  });

  it("names a variable that is an argument itself, and a required one left out", async () => {
    const terminals = await postGraphQL(
      platform.baseUrl,
      "query($status: DeviceStatus) { terminals(status: $status) { total_count } }",
      { status: "broken" },
      token,
    );
    expect(terminals.status).toBe(400);
    expect(terminals.body.errors?.[0]?.extensions).toEqual({
      code: "INVALID_REQUEST",
      details: { field: "status", constraint: "enum" },
    });
    const missing = await postGraphQL(platform.baseUrl, updateStore, { input: { name: "x" } }, token);
    expect(missing.body.errors?.[0]?.extensions).toEqual({
      code: "INVALID_REQUEST",
      details: { field: "id", constraint: "required" },
    });
  });

  it("answers 400 naming the field when a subgraph's own scalar refuses it (JSONObject, DateTime)", async () => {
    const cases = [
      [updateStore, { id: homeStore.id, input: { payment_config: "cash" } }, "input.payment_config"],
      [
        "query($store: Int, $from: DateTime) { orders(store_id: $store, from: $from) { total_count } }",
        { store: homeStore.id, from: "yesterday" },
        "from",
      ],
    ] as const;
    for (const [query, variables, field] of cases) {
      const { status, body } = await postGraphQL(platform.baseUrl, query, variables, token);
      expect({ field, status, body }).toMatchObject({
        field,
        status: 400,
        body: { errors: [{ extensions: { code: "INVALID_REQUEST", details: { field, constraint: "type" } } }] },
      });
      expect(body.errors).toHaveLength(1);
      expect(body).not.toHaveProperty("data");
    }
  });

  it("keeps a service's refusal of a field's value a field error (HTTP 200, data null)", async () => {
    const variables = { id: homeStore.id, input: { name: " " } };
    const { status, body } = await postGraphQL(platform.baseUrl, updateStore, variables, token);
    expect({ status, data: body.data, code: body.errors?.[0]?.extensions?.code, path: body.errors?.[0]?.path }).toEqual(
      { status: 200, data: null, code: "INVALID_REQUEST", path: ["updateStore"] },
    );
  });

  it("names the field over graphql-ws too", async () => {
    const client = createClient({
      url: demoUrls(platform.baseUrl).graphql_ws_url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${token}` },
    });
    try {
      const errors = await new Promise<any>((resolve, reject) => {
        client.subscribe(
          { query: updateStore, variables: { id: homeStore.id, input: { status: "closed" } } },
          { next: (result) => resolve(result.errors), error: resolve, complete: () => reject(new Error("no answer")) },
        );
      });
      expect(errors?.[0]?.extensions).toEqual({
        code: "INVALID_REQUEST",
        details: { field: "input.status", constraint: "enum" },
      });
    } finally {
      await client.dispose();
    }
  });

  it("keeps payment methods the spec's strings over REST, and a bad one a 400 naming the field", async () => {
    const created = await rest("POST", "/api/v1/stores", {
      merchant_id: homeStore.merchant_id,
      code: uniqueCode("S"),
      name: "Methods",
      enabled_payment_methods: ["qr_mpm", "emoney", "cash"],
    });
    expect(created.status).toBe(201);
    expect(created.body.enabled_payment_methods).toEqual(["qr_mpm", "emoney", "cash"]);
    const merchant = await rest("PATCH", `/api/v1/merchants/${homeStore.merchant_id}`, {
      default_payment_methods: ["credit_card", "emoney"],
    });
    expect(merchant.status).toBe(200);
    expect(merchant.body.default_payment_methods).toEqual(["credit_card", "emoney"]);
    const terminal = await rest("PATCH", `/api/v1/terminals/${device.id}`, {
      config: { enabled_payment_methods: ["qr_cpm"] },
    });
    expect(terminal.status).toBe(200);
    expect(terminal.body.config.enabled_payment_methods).toEqual(["qr_cpm"]);
    const refusals = [
      [`/api/v1/stores/${created.body.id}`, { enabled_payment_methods: ["bitcoin"] }, "enabled_payment_methods.0"],
      [
        `/api/v1/merchants/${homeStore.merchant_id}`,
        { default_payment_methods: ["cash", "QR"] },
        "default_payment_methods.1",
      ],
      [
        `/api/v1/terminals/${device.id}`,
        { config: { enabled_payment_methods: ["x"] } },
        "config.enabled_payment_methods.0",
      ],
    ] as const;
    for (const [path, change, field] of refusals) {
      const { status, body } = await rest("PATCH", path, change);
      expect({ path, status, body }).toMatchObject({
        path,
        status: 400,
        body: { code: "invalid_request", details: { field, constraint: "enum" } },
      });
      expect(body.message).not.toMatch(/Variable|\$input|PaymentMethodOption|input\./);
    }
  });

  it("keeps receipt delivery, printer protocol, update channel and settlement frequency strings over REST", async () => {
    const printer = { address: "printer.local", port: 9100, protocol: "star_tcp" };
    const created = await rest("POST", "/api/v1/stores", {
      merchant_id: homeStore.merchant_id,
      code: uniqueCode("S"),
      name: "Receipts",
      receipt_delivery: ["print", "email"],
      printer_config: printer,
    });
    expect(created).toMatchObject({
      status: 201,
      body: { receipt_delivery: ["print", "email"], printer_config: printer },
    });
    const merchant = await rest("PATCH", `/api/v1/merchants/${homeStore.merchant_id}`, {
      settlement_frequency: "weekly",
    });
    expect(merchant).toMatchObject({ status: 200, body: { settlement_frequency: "weekly" } });
    const config = { receipt_delivery: ["sms"], app_version_policy: { channel: "beta" }, printer: printer };
    const terminal = await rest("PATCH", `/api/v1/terminals/${device.id}`, { config });
    expect(terminal).toMatchObject({ status: 200, body: { config } });
    const store = `/api/v1/stores/${created.body.id}`;
    const refusals = [
      [store, { receipt_delivery: ["print", "fax"] }, "receipt_delivery.1"],
      [store, { printer_config: { ...printer, protocol: "serial" } }, "printer_config.protocol"],
      [`/api/v1/merchants/${homeStore.merchant_id}`, { settlement_frequency: "hourly" }, "settlement_frequency"],
      [
        `/api/v1/terminals/${device.id}`,
        { config: { app_version_policy: { channel: "nightly" } } },
        "config.app_version_policy.channel",
      ],
      [`/api/v1/terminals/${device.id}`, { config: { receipt_delivery: ["fax"] } }, "config.receipt_delivery.0"],
    ] as const;
    for (const [path, change, field] of refusals) {
      const { status, body } = await rest("PATCH", path, change);
      expect({ field, status, body }).toMatchObject({
        field,
        status: 400,
        body: { code: "invalid_request", details: { field, constraint: "enum" } },
      });
    }
  });

  it("takes PIN login and MFA verification as one input, and REST names a missing field", async () => {
    const pinLogin = await postGraphQL(
      platform.baseUrl,
      "mutation($input: PinLoginInput!) { pinLogin(input: $input) { token_type } }",
      { input: { login_id: staff.login_id, pin: staff.pin } },
    );
    expect(pinLogin.body).toEqual({ data: { pinLogin: { token_type: "Bearer" } } });
    const missing = [
      ["/api/v1/auth/user/pin-login", { login_id: staff.login_id }, "pin"],
      ["/api/v1/auth/user/mfa/verify", { code: "123456" }, "user_id"],
    ] as const;
    for (const [path, body, field] of missing) {
      expect(await rest("POST", path, body)).toMatchObject({
        status: 400,
        body: { code: "invalid_request", details: { field, constraint: "required" } },
      });
    }
  });
});
