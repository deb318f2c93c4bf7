import { DEFAULT_API_AUDIENCE, DEVICE_TOKEN_ISSUER } from "@pos-cloud/common";
import { decodeJwt, exportJWK, generateKeyPair } from "jose";
import * as oauth from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAssertion, deviceToken, humanToken, TOKEN_PATH, tokenRequest } from "../support/device";
import { uniqueCode } from "../support/environment";
import { logIn, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { seedBranch } from "../support/portal-seed";
import { type SeededDevice, type SeededStore, seed } from "../support/seed";

describe("devices end to end", () => {
  let platform: TestPlatform;
  /** The store the tests' devices are activated in, with a terminal already active. */
  let home: SeededStore;
  let homeDevice: SeededDevice;
  let operator: string;
  let manager: string;

  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    home = await seed(platform).store();
    homeDevice = await seed(platform).device(home);
    operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
    // The store manager logs in for real (password and TOTP), as staff do before entering a code.
    manager = (await logIn(platform.baseUrl, await seed(platform).user("STORE_MANAGER", home))).access_token;
  });
  afterAll(() => platform?.close());

  /** A terminal with a fresh key pair, provisioned through the public endpoints and activated by the manager. */
  async function provision() {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const serial_number = uniqueCode("SN");
    const generated = await call("POST", "/api/v1/device/provision/generateActivationCode", undefined, {
      serial_number,
      public_key_jwk: await exportJWK(publicKey),
      model: "A920",
      manufacturer: "PAX",
    });
    expect(generated.status).toBe(201);
    const code = generated.body.activation_code as string;
    const statusPath = `/api/v1/device/provision/activationStatus?activation_code=${code}`;
    expect((await call("GET", statusPath)).body).toEqual({
      status: "pending",
      device_id: null,
      client_id: null,
      merchant_id: null,
      store_id: null,
    });
    const activated = await call("POST", "/device/provision/activate", manager, {
      activation_code: code,
      store_id: home.id,
    });
    expect(activated.status).toBe(200);
    const status = await call("GET", statusPath);
    expect(status.body).toEqual({
      status: "active",
      device_id: activated.body.id,
      client_id: activated.body.client_id,
      merchant_id: home.merchant_id,
      store_id: home.id,
    });
    return {
      id: status.body.device_id as string,
      client_id: status.body.client_id as string,
      private_jwk: await exportJWK(privateKey),
      privateKey,
    };
  }

  const audience = () => `${platform.baseUrl}${TOKEN_PATH}`;

  it("provisions a device, issues it a token and lets it check for updates", async () => {
    const device = await provision();
    const response = await tokenRequest(
      platform.baseUrl,
      await clientAssertion(device.private_jwk, device.client_id, audience()),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 90 });
    const claims = JSON.parse(Buffer.from(body.access_token.split(".")[1]!, "base64url").toString());
    expect(claims).toMatchObject({
      iss: DEVICE_TOKEN_ISSUER,
      sub: device.id,
      merchant_id: home.merchant_id,
      store_id: home.id,
      scope: expect.arrayContaining(["order:create", "bill:create", "payment:create"]),
    });
    expect(claims.exp - claims.iat).toBe(90);

    const version = await call("POST", "/api/v1/app-updates", operator, {
      app_name: "business-app",
      version_code: 900,
      version_name: "9.0.0",
      apk_url: "https://cdn.example.com/business-900.apk",
      apk_size: 1000,
      apk_checksum: `sha256:${"cd".repeat(32)}`,
      min_os_version: "11",
    });
    expect(version.status).toBe(201);
    await call("PATCH", `/api/v1/app-updates/${version.body.id}`, operator, {
      release_status: "stable",
      rollout_percentage: 100,
    });
    await call("POST", `/api/v1/app-updates/${version.body.id}/publish`, operator);
    const check = `/app-updates/check?app_name=business-app&current_version_code=100&device_id=${device.id}`;
    const update = await call("GET", check, body.access_token);
    expect(update.status).toBe(200);
    expect(update.body).toMatchObject({ update_available: true, version_code: 900, is_mandatory: false });
    expect((await call("GET", check, manager)).status).toBe(403);
    const other = `/app-updates/check?app_name=business-app&current_version_code=100&device_id=${homeDevice.id}`;
    expect((await call("GET", other, body.access_token)).status).toBe(403);
    const confirm = await call("POST", "/app-updates/install-confirm", body.access_token, {
      device_id: device.id,
      version_code: 900,
      install_status: "installed",
    });
    expect(confirm.status).toBe(200);
  });

  it("accepts the JSON variant and the issuer as audience", async () => {
    const assertion = await clientAssertion(homeDevice.private_jwk, homeDevice.client_id, DEVICE_TOKEN_ISSUER);
    const response = await call("POST", TOKEN_PATH, undefined, {
      client_id: homeDevice.client_id,
      client_assertion: assertion,
    });
    expect(response.status).toBe(200);
  });

  describe("refuses bad assertions in OAuth's error format", () => {
    const refused = async (assertion: string, status: number, error: string) => {
      const response = await tokenRequest(platform.baseUrl, assertion);
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({ error, error_description: expect.any(String) });
    };
    const now = () => Math.floor(Date.now() / 1000);

    it("a replayed jti", async () => {
      const assertion = await clientAssertion(homeDevice.private_jwk, homeDevice.client_id, audience());
      expect((await tokenRequest(platform.baseUrl, assertion)).status).toBe(200);
      await refused(assertion, 400, "invalid_grant");
    });
    it("an expired assertion", async () => {
      const iat = now() - 120;
      await refused(
        await clientAssertion(homeDevice.private_jwk, homeDevice.client_id, audience(), { iat, exp: iat + 60 }),
        401,
        "invalid_client",
      );
    });
    it("an assertion living longer than 60 s", async () => {
      await refused(
        await clientAssertion(homeDevice.private_jwk, homeDevice.client_id, audience(), { exp: now() + 300 }),
        401,
        "invalid_client",
      );
    });
    it("a wrong audience", async () => {
      await refused(
        await clientAssertion(homeDevice.private_jwk, homeDevice.client_id, "https://elsewhere.example/token"),
        401,
        "invalid_client",
      );
    });
    it("a key that is not the device's", async () => {
      const { privateKey } = await generateKeyPair("ES256", { extractable: true });
      await refused(
        await clientAssertion(await exportJWK(privateKey), homeDevice.client_id, audience()),
        401,
        "invalid_client",
      );
    });
    it("an unsupported grant type", async () => {
      const response = await fetch(`${platform.baseUrl}${TOKEN_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "password", client_assertion: "x" }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe("unsupported_grant_type");
    });
  });

  it("gives a suspended device no token, and a resumed one again", async () => {
    const device = await provision();
    const suspended = await call("POST", `/api/v1/terminals/${device.id}/suspend`, manager);
    expect(suspended.body.status).toBe("suspended");
    const listed = await call("GET", "/api/v1/terminals?status=suspended&limit=100", manager);
    expect(listed.body.map((each: { id: string }) => each.id)).toContain(device.id);
    expect(listed.body.every((each: { status: string }) => each.status === "suspended")).toBe(true);
    const bogus = await call("GET", "/api/v1/terminals?status=bogus", manager);
    expect(bogus.status).toBe(400);
    expect(bogus.body).toMatchObject({ code: "invalid_request", details: { field: "status", constraint: "enum" } });
    const assertion = () => clientAssertion(device.private_jwk, device.client_id, audience());
    expect((await tokenRequest(platform.baseUrl, await assertion())).status).toBe(401);
    await call("POST", `/api/v1/terminals/${device.id}/resume`, manager);
    expect((await tokenRequest(platform.baseUrl, await assertion())).status).toBe(200);
    expect((await call("DELETE", `/terminals/${device.id}`, manager)).body.status).toBe("decommissioned");
    expect((await tokenRequest(platform.baseUrl, await assertion())).status).toBe(401);
    expect((await call("POST", `/terminals/${device.id}/resume`, manager)).status).toBe(409);
  });

  it("answers who provisioned, activated and suspended a device, each record to whom its place shows it", async () => {
    const device = await provision();
    expect((await call("POST", `/api/v1/terminals/${device.id}/suspend`, manager)).status).toBe(200);
    const trail = async (token: string) =>
      (await call("GET", `/api/v1/audit-logs?target=${device.id}`, token)).body as Record<string, any>[];
    const managerId = JSON.parse(Buffer.from(manager.split(".")[1]!, "base64url").toString()).sub;
    // The device provisioned itself before any store had it: that record is the platform's (L0) alone.
    expect((await trail(operator)).map((record) => [record.event, record.actor_type])).toEqual([
      ["device.suspend", "user"],
      ["device.activate", "user"],
      ["device.provision", "anonymous"],
    ]);
    const seen = await trail(manager);
    expect(seen.map((record) => record.event)).toEqual(["device.suspend", "device.activate"]);
    expect(seen.every((record) => record.actor_id === managerId && record.store_id === home.id)).toBe(true);
    const other = await seedBranch(platform.portal);
    const outsider = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: other.psp.id,
      merchant_id: other.merchant.id,
    });
    expect(await trail(outsider)).toEqual([]);
  });

  it("issues a token to a standard OAuth client (openid-client, private_key_jwt, no discovery)", async () => {
    const device = await provision();
    const config = new oauth.Configuration(
      { issuer: DEVICE_TOKEN_ISSUER, token_endpoint: audience() },
      device.client_id,
      {},
      oauth.PrivateKeyJwt(device.privateKey),
    );
    oauth.allowInsecureRequests(config);
    const tokens = await oauth.clientCredentialsGrant(config);
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    const store = await call("GET", `/api/v1/stores/${home.id}`, tokens.access_token);
    expect(store.status).toBe(200);
  });

  it("describes its token endpoint (RFC 8414): openid-client discovers it and gets a token with the device's key alone", async () => {
    const device = await provision();
    const config = await oauth.discovery(
      new URL(platform.baseUrl),
      device.client_id,
      undefined,
      oauth.PrivateKeyJwt(device.privateKey),
      { algorithm: "oauth2", execute: [oauth.allowInsecureRequests] },
    );
    expect(config.serverMetadata()).toMatchObject({
      issuer: platform.baseUrl,
      token_endpoint: `${platform.baseUrl}/api/v1/auth/device/token`,
      jwks_uri: `${platform.baseUrl}/api/v1/jwks/device`,
      grant_types_supported: ["client_credentials"],
      token_endpoint_auth_methods_supported: ["private_key_jwt"],
      token_endpoint_auth_signing_alg_values_supported: ["ES256"],
    });
    const tokens = await oauth.clientCredentialsGrant(config);
    expect((await call("GET", `/api/v1/stores/${home.id}`, tokens.access_token)).status).toBe(200);
  });

  it("gives every access token the API's audience and an id of its own, and refuses one for another audience", async () => {
    const first = decodeJwt(await deviceToken(platform.baseUrl, homeDevice));
    const second = decodeJwt(await deviceToken(platform.baseUrl, homeDevice));
    const human = decodeJwt(manager);
    for (const claims of [first, second, human]) {
      expect(claims.aud).toBe(DEFAULT_API_AUDIENCE);
      expect(claims.jti).toMatch(/^[\w-]{16,}$/);
    }
    expect(new Set([first.jti, second.jti, human.jti]).size).toBe(3);
    const elsewhere = await humanToken(platform.portal, {
      role: "STORE_MANAGER",
      psp_id: home.psp_id,
      merchant_id: home.merchant_id,
      store_id: home.id,
      aud: "another-api",
    });
    const refused = await call("GET", `/api/v1/stores/${home.id}`, elsewhere);
    expect(refused).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    const graphql = await postGraphQL(platform.baseUrl, "{ stores { total_count } }", {}, elsewhere);
    expect(graphql.status).toBe(401);
  });

  it("answers the portal's one-request view with exactly what the caller may see", async () => {
    const view = `{ psps(limit: 100) { nodes { id merchants { id stores { id devices { id store_id } } } } }
      stores(limit: 100) { nodes { id devices { id } } } }`;
    const asManager = await postGraphQL(platform.baseUrl, view, {}, manager);
    expect(asManager.body.errors).toBeUndefined();
    expect(asManager.body.data.psps.nodes).toEqual([]);
    expect(asManager.body.data.stores.nodes.map((s: { id: number }) => s.id)).toEqual([home.id]);
    const admin = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: home.psp_id,
      merchant_id: home.merchant_id,
    });
    const asAdmin = await postGraphQL(platform.baseUrl, view, {}, admin);
    expect(asAdmin.body.data.psps.nodes).toEqual([]);
    const merchants = await postGraphQL(
      platform.baseUrl,
      "{ merchants(limit: 100) { nodes { id stores { id devices { id } } } } }",
      {},
      admin,
    );
    expect(merchants.body.data.merchants.nodes.map((m: { id: number }) => m.id)).toEqual([home.merchant_id]);
    const devices = merchants.body.data.merchants.nodes[0].stores.flatMap(
      (s: { devices: { id: string }[] }) => s.devices,
    );
    expect(devices.map((d: { id: string }) => d.id)).toContain(homeDevice.id);
    const asOperator = await postGraphQL(platform.baseUrl, view, {}, operator);
    expect(asOperator.body.data.psps.nodes.map((p: { id: number }) => p.id)).toContain(home.psp_id);
  });

  it("serves the tenant endpoints with scope, conflicts and validation over REST", async () => {
    const code = uniqueCode("PSP");
    expect((await call("POST", "/api/v1/psps", operator, { code, name: "PSP" })).status).toBe(201);
    const again = await call("POST", "/api/v1/psps", operator, { code, name: "PSP" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "conflict", details: { field: "code" } });
    expect((await call("POST", "/psps", manager, { code: uniqueCode("P"), name: "x" })).status).toBe(403);
    expect((await call("GET", `/api/v1/merchants/${home.merchant_id}`, manager)).status).toBe(403);
    expect((await call("GET", `/api/v1/merchants/${home.merchant_id}`, operator)).status).toBe(200);
    const bad = await call("PATCH", `/api/v1/stores/${home.id}`, manager, { tax_rate: "ten" });
    expect(bad).toMatchObject({ status: 400, body: { code: "invalid_request", details: { field: "tax_rate" } } });
    const devices = await call("GET", `/api/v1/stores/${home.id}/devices?limit=100`, manager);
    expect(devices.body.map((d: { id: string }) => d.id)).toContain(homeDevice.id);
    expect((await call("GET", "/api/v1/stores?limit=500", manager)).body.details.field).toBe("limit");
    expect((await call("GET", `/api/v1/stores/${home.id}`)).status).toBe(401);
    expect((await call("GET", `/api/v1/stores/${home.id}`, "not-a-token")).status).toBe(401);
  });

  it("names the REST field when the typed GraphQL input refuses a body, and keeps the service's own rules", async () => {
    const refusal = async (method: string, path: string, body: Record<string, unknown>) => {
      const response = await call(method, path, operator, body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("invalid_request");
      expect(response.body.message).not.toMatch(/Input|Variable|\$input/);
      return response.body.details;
    };
    const store = `/api/v1/stores/${home.id}`;
    const newStore = { merchant_id: home.merchant_id, code: uniqueCode("S"), name: "Store" };
    expect(await refusal("POST", "/api/v1/stores", { ...newStore, colour: "red" })).toEqual({
      field: "colour",
      constraint: "unknown_field",
    });
    expect(await refusal("POST", "/api/v1/stores", { merchant_id: home.merchant_id, name: "Store" })).toEqual({
      field: "code",
      constraint: "required",
    });
    expect(await refusal("PATCH", store, { address: { city: 5 } })).toEqual({
      field: "address.city",
      constraint: "type",
    });
    expect(await refusal("PATCH", store, { operating_hours: { mon: [{ open: "09:00" }] } })).toEqual({
      field: "operating_hours.mon.0.close",
      constraint: "required",
    });
    expect(await refusal("PATCH", store, { payment_config: "cash" })).toEqual({
      field: "payment_config",
      constraint: "type",
    });
    expect(
      await refusal("POST", "/api/v1/psps", { code: uniqueCode("P"), name: "P", contact_email: "nope" }),
    ).toMatchObject({ field: "contact_email", constraint: "invalid_format" });
    expect(
      await refusal("PATCH", store, { operating_hours: { mon: [{ open: "25:00", close: "21:00" }] } }),
    ).toMatchObject({ field: "operating_hours.mon.0.open", constraint: "invalid_format" });
    const terminal = `/api/v1/terminals/${homeDevice.id}`;
    expect(
      await refusal("PATCH", terminal, { config: { printer: { address: "p", port: "x", protocol: "usb" } } }),
    ).toEqual({ field: "config.printer.port", constraint: "type" });
    expect(await refusal("PATCH", terminal, { config: { network: { dns: ["nope"] } } })).toMatchObject({
      field: "config.network.dns.0",
    });
    expect(await refusal("POST", "/api/v1/terminals", { model: "m", manufacturer: "x", store_id: home.id })).toEqual({
      field: "serial_number",
      constraint: "required",
    });
    expect(await refusal("POST", `${terminal}/transfer`, { store_id: home.id, note: "x" })).toEqual({
      field: "note",
      constraint: "unknown_field",
    });
    expect(await refusal("PATCH", store, { table_assignments: "A1" })).toEqual({
      field: "table_assignments",
      constraint: "type",
    });
    expect(await refusal("PATCH", store, { status: "closed" })).toEqual({ field: "status", constraint: "enum" });
    expect(await refusal("PATCH", "/api/v1/app-updates/1", { release_status: "gold" })).toEqual({
      field: "release_status",
      constraint: "enum",
    });
    expect(await refusal("PATCH", "/api/v1/app-updates/1", { enroll_device_ids: "x" })).toEqual({
      field: "enroll_device_ids",
      constraint: "type",
    });
    expect(await refusal("POST", "/api/v1/device/provision/activate", { activation_code: "X" })).toEqual({
      field: "store_id",
      constraint: "required",
    });
  });

  it("refuses a value that is no list where the typed GraphQL input has one, naming the field", async () => {
    const { status, body } = await postGraphQL(
      platform.baseUrl,
      `mutation($id: Int!, $input: UpdateStoreInput!) { updateStore(id: $id, input: $input) { id } }`,
      { id: home.id, input: { table_assignments: "A1" } },
      operator,
    );
    expect(status).toBe(400);
    expect(body.errors?.[0]?.extensions).toEqual({
      code: "INVALID_REQUEST",
      details: { field: "input.table_assignments", constraint: "type" },
    });
  });

  it("limits code generation per serial with a 429 and the rate-limit headers", async () => {
    const { publicKey } = await generateKeyPair("ES256");
    const body = {
      serial_number: uniqueCode("SN"),
      public_key_jwk: await exportJWK(publicKey),
      model: "m",
      manufacturer: "x",
    };
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await call("POST", "/device/provision/generateActivationCode", undefined, body);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    expect(last!.body.code).toBe("rate_limit_exceeded");
    expect(last!.headers.get("x-ratelimit-limit")).toBe("5");
    expect(Number(last!.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
  });
  it("answers a terminal id that is no UUID with 404 over REST and GraphQL, for every caller, and changes nothing", async () => {
    const before = await call("GET", `/api/v1/terminals/${homeDevice.id}`, operator);
    const notFound = { code: "not_found", message: expect.any(String), details: {} };
    for (const id of ["abc", "00000000-0000-0000-0000-00000000000g", "1"]) {
      const path = `/api/v1/terminals/${id}`;
      for (const token of [operator, manager]) {
        for (const [method, at, body] of [
          ["GET", path, undefined],
          ["PATCH", path, { model: "A930" }],
          ["POST", `${path}/suspend`, undefined],
          ["POST", `${path}/resume`, undefined],
          ["POST", `${path}/transfer`, { store_id: home.id }],
          ["DELETE", path, undefined],
        ] as const) {
          const answer = await call(method, at, token, body);
          expect({ method, at, status: answer.status, body: answer.body }).toEqual({
            method,
            at,
            status: 404,
            body: notFound,
          });
        }
      }
      const read = await postGraphQL(
        platform.baseUrl,
        "query($id: ID!) { terminal(id: $id) { id } }",
        { id },
        operator,
      );
      expect(read.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      for (const mutation of ["suspendTerminal", "resumeTerminal", "decommissionTerminal"]) {
        const moved = await postGraphQL(
          platform.baseUrl,
          `mutation($id: ID!) { ${mutation}(id: $id) { id } }`,
          { id },
          operator,
        );
        expect(moved.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      }
    }
    expect((await call("GET", `/api/v1/terminals/${homeDevice.id}`, operator)).body).toEqual(before.body);
  });
});
