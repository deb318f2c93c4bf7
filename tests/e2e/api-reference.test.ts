import { openApiPath, restRoutes } from "@pos-cloud/rest-compat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/browser";
import { checkRequest } from "../support/contract";
import { humanToken } from "../support/device";
import { signed } from "../support/gateway";
import { loggedDuring } from "../support/log";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStorePartner, seed } from "../support/seed";

/** Every path the route table serves (with `:name` segments), prefixed and unprefixed, with its methods. */
function pathsOfTheTable(): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const route of restRoutes) {
    const served = route.alsoUnprefixed ? [route.path, route.path.replace(/^\/api\/v1/, "")] : [route.path];
    for (const path of served) paths.set(path, [...(paths.get(path) ?? []), route.method]);
  }
  return paths;
}

/**
 * The methods the table serves at a concrete path: a `:name` segment takes any word, so `/bills/combine` is also
 * `/bills/:id` (GET); a `/v1` path answers CORS preflights too.
 */
function methodsAt(concrete: string, paths: Map<string, string[]>): string {
  const segments = concrete.split("/");
  const fits = (path: string) =>
    path.split("/").length === segments.length &&
    path.split("/").every((segment, i) => segment.startsWith(":") || segment === segments[i]);
  const methods = [...paths].flatMap(([path, of]) => (fits(path) ? of : []));
  return [...new Set(concrete.startsWith("/v1/") ? [...methods, "OPTIONS"] : methods)].sort().join(", ");
}

describe("API reference (issue 23)", () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
  });
  afterAll(() => platform?.close());

  it("serves an OpenAPI 3.1 document of every REST route at /openapi.json", async () => {
    const response = await fetch(`${platform.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const document = (await response.json()) as any;
    expect(document.openapi).toBe("3.1.0");
    const served = Object.entries(document.paths as Record<string, object>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(served.sort()).toEqual(restRoutes.map((route) => `${route.method} ${openApiPath(route.path)}`).sort());

    const create = document.paths["/v1/payment_intents"].post;
    expect(create.security).toEqual([{ hmac: [] }, { hmacBase64: [] }]);
    expect(create.parameters).toContainEqual({ $ref: "#/components/parameters/Idempotency-Key" });
    expect(create.responses["201"].content["application/json"].schema.required).toContain("payment_token");
    const list = document.paths["/api/v1/orders"].get;
    expect(list.responses["200"].headers).toHaveProperty("X-Total-Count");
    expect(list.responses["200"].content["application/json"].schema.type).toBe("array");
    expect(list.parameters.map((parameter: { name: string }) => parameter.name)).toContain("store_id");
    expect(document.components.responses.ApiError404.content["application/json"].schema.required).toEqual([
      "code",
      "message",
      "details",
    ]);
  });

  it("serves a readable reference at /docs whose script comes from the platform itself", async () => {
    const page = await fetch(`${platform.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('spec-url="/openapi.json"');
    const script = html.match(/<script src="([^"]+)"/)?.[1];
    expect(script).toBe("/docs/assets/redoc.standalone.js");
    const bundle = await fetch(`${platform.baseUrl}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });

  it("answers a method a path does not have 405 with Allow naming the methods it has, on every path of the table", async () => {
    const paths = pathsOfTheTable();
    const wrong: string[] = [];
    // The access log of some two hundred refusals stays out of the test's output.
    await loggedDuring(async () => {
      for (const path of paths.keys()) {
        const concrete = path.replace(/:\w+/g, "1");
        const expected = methodsAt(concrete, paths);
        const method = ["PUT", "DELETE", "PATCH", "POST", "GET"].find((candidate) => !expected.includes(candidate))!;
        const response = await fetch(`${platform.baseUrl}${concrete}`, { method });
        const { code } = (await response.json()) as { code: string };
        const allow = (response.headers.get("allow") ?? "").split(", ").sort().join(", ");
        const seen = `${response.status} ${code} Allow: ${allow}`;
        if (seen !== `405 method_not_allowed Allow: ${expected}`) wrong.push(`${method} ${path}: ${seen}`);
      }
    });
    expect(wrong).toEqual([]);
  });

  it("serves /docs with a content security policy, no framing and no sniffing", async () => {
    const page = await fetch(`${platform.baseUrl}/docs`);
    const policy = page.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("renders /docs in a browser under its policy, with no violation reported", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const complaints: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || /content security policy/i.test(message.text()))
          complaints.push(message.text());
      });
      page.on("pageerror", (error) => complaints.push(error.message));
      // Everything the page loads comes from the platform itself.
      page.on("request", (request) => {
        if (!/^(data:|blob:)/.test(request.url()) && !request.url().startsWith(platform.baseUrl))
          complaints.push(`requested ${request.url()}`);
      });
      await page.goto(`${platform.baseUrl}/docs`);
      await page.getByRole("heading", { name: /POS cloud platform REST API/ }).waitFor();
      // An operation of the document, rendered from /openapi.json and its schemas.
      await page.getByText("/v1/payment_intents/{id}/capture").first().waitFor({ state: "attached" });
      expect(complaints).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  describe("requests: the reference is as strict as the services' validators", () => {
    /** Bodies the services refuse, each for one rule its validator holds (a range, an enum, a pattern, a field). */
    const refused: [string, string, Record<string, unknown>][] = [
      ["POST", "/api/v1/orders", { order_type: "takeaway", items: [] }],
      [
        "POST",
        "/api/v1/orders",
        { order_type: "takeaway", items: [{ sequence: 1, item_name: "Tea", quantity: 0, unit_price: 300 }] },
      ],
      [
        "POST",
        "/api/v1/orders",
        {
          order_type: "dine_in",
          table_number: "#12",
          items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 300 }],
        },
      ],
      [
        "POST",
        "/api/v1/orders",
        {
          order_type: "takeaway",
          customer_id: "not-a-uuid",
          items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 300 }],
        },
      ],
      ["POST", "/api/v1/customers", { phone: "+819012345678", date_of_birth: "1990/04/01" }],
      [
        "POST",
        "/api/v1/app-updates",
        {
          app_name: "qr-app",
          version_code: 2,
          version_name: "2",
          apk_url: "https://x.example/a.apk",
          apk_size: 1,
          apk_checksum: "sha256:00",
          min_os_version: "11",
        },
      ],
      [
        "POST",
        "/api/v1/bills",
        { order_id: "00000000-0000-4000-8000-000000000000", staff_code: "S1", tax_percentage: -1 },
      ],
    ];

    const tokens: Record<string, string> = {};
    /** The POS partner's key that signs for the store, for the gateway's bodies. */
    let partner: SeededStorePartner;
    beforeAll(async () => {
      const store = await seed(platform).store({ sells: true });
      const place = { psp_id: store.psp_id, merchant_id: store.merchant_id, store_id: store.id };
      tokens.manager = await humanToken(platform.portal, { role: "STORE_MANAGER", ...place });
      tokens.operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
      partner = await seed(platform).storePartner(store);
    });

    it.each(
      refused,
    )("calls %s %s with a body its validator refuses invalid, and the service refuses it (400)", async (method, path, body) => {
      const init = { method, body: JSON.stringify(body) };
      const token = path === "/api/v1/app-updates" ? tokens.operator : tokens.manager;
      // The check speaks only of answers that accepted a request: a 2xx here is what it must flag.
      expect(checkRequest(method, new URL(path, platform.baseUrl), init, 201)).toMatch(/its reference calls invalid/);
      const response = await fetch(`${platform.baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe("invalid_request");
    });

    it.each([
      "event=User.Login",
      `actor=${"a".repeat(201)}`,
    ])("calls the audit trail's filter %s invalid, and the portal refuses it (400)", async (query) => {
      const url = new URL(`/api/v1/audit-logs?${query}`, platform.baseUrl);
      expect(checkRequest("GET", url, { method: "GET" }, 200)).toMatch(/its reference calls invalid/);
      const response = await fetch(url, { headers: { authorization: `Bearer ${tokens.operator}` } });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe("invalid_request");
    });

    /** Gateway bodies each breaking one rule of the spec's payment intent (the amount's range, ISO 4217, the methods). */
    const intent = (overrides: Record<string, unknown>) => ({
      amount: 1500,
      currency: "JPY",
      payment_method_types: ["qr_mpm"],
      merchant_ref_id: "order-1",
      ...overrides,
    });
    const refusedAtTheGateway: [string, Record<string, unknown>, string][] = [
      ["amount 0", intent({ amount: 0 }), "amount"],
      ["amount over 100,000,000", intent({ amount: 100_000_001 }), "amount"],
      ["a currency outside ISO 4217's list", intent({ currency: "XXX" }), "currency"],
      ["an unknown method", intent({ payment_method_types: ["barter"] }), "payment_method_types"],
      ["no methods", intent({ payment_method_types: [] }), "payment_method_types"],
      ["a blank merchant_ref_id", intent({ merchant_ref_id: "  " }), "merchant_ref_id"],
      ["expiry past a day", intent({ expires_in_minutes: 1441 }), "expires_in_minutes"],
    ];

    it.each(
      refusedAtTheGateway,
    )("calls a payment intent with %s invalid, and the gateway refuses it (400)", async (_, body, field) => {
      const init = { method: "POST", body: JSON.stringify(body) };
      const url = new URL("/v1/payment_intents", platform.baseUrl);
      expect(checkRequest("POST", url, init, 201)).toMatch(/its reference calls invalid/);
      const response = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
        ...body,
        merchant_store_id: partner.store_code,
      });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("invalid_request");
      // GraphQL's own enum names the item (`payment_method_types.0`) before the service's validator runs.
      expect(response.body.details.field).toMatch(new RegExp(`^${field}(\\.|$)`));
    });

    /** The answer of a body the reference calls invalid: flagged by the contract check were it accepted. */
    const expectRefused = async (response: { status: number; body: { code: string; details: { field: string } } }) => {
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("invalid_request");
      return response.body.details.field;
    };

    it.each([
      ["an ftp:// URL", { webhook_url: "ftp://partner.example.com/hooks" }, "https"],
      ["a user name and password", { webhook_url: "https://user:pw@partner.example.com/hooks" }, "no_credentials"],
      ["no URL at all", {}, undefined],
    ])("calls a partner's webhook with %s invalid, and the gateway refuses it (400)", async (_, body, constraint) => {
      const init = { method: "PUT", body: JSON.stringify(body) };
      const url = new URL("/v1/api_key/webhook", platform.baseUrl);
      expect(checkRequest("PUT", url, init, 200)).toMatch(/its reference calls invalid/);
      const response = await signed(platform.baseUrl, partner, "PUT", "/v1/api_key/webhook", body);
      expect(await expectRefused(response)).toMatch(/^webhook_url|^input/);
      if (constraint) expect(response.body.details.constraint).toBe(constraint);
      const kept = await signed(platform.baseUrl, partner, "GET", "/v1/api_key/webhook");
      expect(kept.body.webhook_url).toBeNull();
    });

    it.each([
      ["a method that is not a QR", { payment_method_type: "cash", provider: "sandbox" }, "payment_method_type"],
      ["a blank provider", { payment_method_type: "qr_mpm", provider: "" }, "provider"],
      ["no provider", { payment_method_type: "qr_mpm" }, "provider"],
    ])("calls a confirm with %s invalid, and the gateway refuses it (400)", async (_, fields, field) => {
      const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
        ...intent({ merchant_ref_id: `confirm-${field}-${Date.now()}` }),
        merchant_store_id: partner.store_code,
      });
      expect(created.status).toBe(201);
      const path = `/v1/payment_intents/${created.body.id}/confirm`;
      const init = {
        method: "POST",
        body: JSON.stringify({ payment_token: created.body.payment_token.token, ...fields }),
      };
      expect(checkRequest("POST", new URL(path, platform.baseUrl), init, 200)).toMatch(/its reference calls invalid/);
      const response = await fetch(`${platform.baseUrl}${path}`, {
        ...init,
        headers: { "content-type": "application/json" },
      });
      expect(await expectRefused({ status: response.status, body: (await response.json()) as never })).toBe(field);
      const read = await fetch(`${platform.baseUrl}/v1/payment_intents/${created.body.id}`, {
        headers: { authorization: `Bearer ${created.body.payment_token.token}` },
      });
      expect(((await read.json()) as { status: string }).status).toBe("requires_payment_method");
    });

    /** Platform ids no other test uses: a refused sync must not create them. */
    const unused = 1_500_000_000 + Math.floor(Math.random() * 500_000_000);
    it.each([
      ["a merchant with neither merchant_id nor id", [{ code: "m-1", stores: [] }], "merchants.0.merchant_id"],
      ["a store id 0", [{ merchant_id: unused, stores: [{ id: 0 }] }], "merchants.0.stores.0.store_id"],
      [
        "a provider code with a space",
        [
          {
            id: unused,
            stores: [{ store_id: unused, provider_configs: [{ provider_code: "no such", credentials: {} }] }],
          },
        ],
        "merchants.0.stores.0.provider_configs.0.provider_code",
      ],
      ["101 merchants", Array.from({ length: 101 }, (_, i) => ({ merchant_id: unused + i, stores: [] })), "merchants"],
    ])("calls a merchant sync with %s invalid, and the gateway refuses it (400)", async (_, merchants, field) => {
      const body = { merchants };
      const init = { method: "POST", body: JSON.stringify(body) };
      expect(checkRequest("POST", new URL("/v1/sync/merchants", platform.baseUrl), init, 200)).toMatch(
        /its reference calls invalid/,
      );
      const response = await signed(platform.baseUrl, partner, "POST", "/v1/sync/merchants", body);
      expect(await expectRefused(response)).toBe(field);
    });
  });
});
