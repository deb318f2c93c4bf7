import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorization, call, type SignOptions, signed } from "../support/gateway";
import { postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStorePartner, seed } from "../support/seed";

const webView = "https://webview.example";
let platform: TestPlatform;
let partner: SeededStorePartner;
beforeAll(async () => {
  platform = await startTestPlatform({ corsOrigins: [webView], demo: false });
  partner = await seed(platform).storePartner();
});
afterAll(() => platform?.close());

const intent = () => ({
  amount: 800,
  currency: "JPY",
  payment_method_types: ["qr_mpm"],
  merchant_ref_id: `auth-${randomUUID()}`,
  merchant_store_id: partner.store_code,
});
const now = () => Math.floor(Date.now() / 1000);

describe("HMAC signatures", () => {
  it("accepts both of the spec's schemes", async () => {
    for (const scheme of [1, 2] as const) {
      const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", intent(), { scheme });
      expect(created.status).toBe(201);
      const list = await signed(platform.baseUrl, partner, "GET", "/v1/payment_intents?limit=1", undefined, {
        scheme,
      });
      expect(list.status).toBe(200);
    }
  });

  const bad: [string, SignOptions & { client?: "wrong_client" | "wrong_secret" }][] = [
    ["a wrong client_id", { client: "wrong_client" }],
    ["a wrong secret", { client: "wrong_secret" }],
    // Getters: the clock is read when the request is signed, not when the table is built.
    [
      "a timestamp 301 s old",
      {
        get timestamp() {
          return now() - 301;
        },
      },
    ],
    [
      "a timestamp 301 s ahead",
      {
        get timestamp() {
          return now() + 301;
        },
      },
    ],
    ["a tampered body", { signedBody: "{}" }],
    ["a tampered path", { signedTarget: "/v1/payment_intents/other" }],
    ["scheme 2 with a tampered body", { scheme: 2, signedBody: "{}" }],
    [
      "scheme 2 and a stale timestamp",
      {
        scheme: 2,
        get timestamp() {
          return now() - 301;
        },
      },
    ],
  ];
  it.each(bad)("answers 401 unauthorized, and nothing more, for %s", async (_, options) => {
    const credentials =
      options.client === "wrong_client"
        ? { client_id: "cl_nobody", secret: partner.secret }
        : options.client === "wrong_secret"
          ? { client_id: partner.client_id, secret: "0".repeat(64) }
          : partner;
    const response = await signed(platform.baseUrl, credentials, "POST", "/v1/payment_intents", intent(), options);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ code: "unauthorized", message: expect.any(String), details: {} });
  });

  it("covers the query string exactly as sent", async () => {
    const target = "/v1/payment_intents?limit=5";
    const header = authorization(partner, "GET", target, "");
    const tampered = await fetch(`${platform.baseUrl}/v1/payment_intents?limit=6`, {
      headers: { authorization: header },
    });
    expect(tampered.status).toBe(401);
    const exact = await fetch(`${platform.baseUrl}${target}`, { headers: { authorization: header } });
    expect(exact.status).toBe(200);
  });

  it("refuses a missing or malformed Authorization header and unsigned routes' tokens", async () => {
    for (const header of [
      undefined,
      "HMAC-SHA256 only-two:parts",
      "Bearer pt_x",
      `HMAC-SHA256 ${partner.client_id}:abc:def`,
    ]) {
      const response = await call(
        platform.baseUrl,
        "POST",
        "/v1/sync/merchants",
        { merchants: [] },
        header ? { authorization: header } : {},
      );
      expect(response.status).toBe(401);
      expect(response.body.code).toBe("unauthorized");
    }
  });

  it("verifies with either active secret while one rotates", async () => {
    const rotating = await platform.partners.createPartner("rotating partner");
    const first = await platform.partners.issueApiKey(rotating.id);
    const second = await platform.partners.issueApiKey(rotating.id, { client_id: first.client_id });
    for (const key of [first, second]) {
      const response = await signed(platform.baseUrl, key, "GET", "/v1/payment_intents");
      expect(response.status).toBe(200);
    }
  });

  it("keeps partner secrets out of the public GraphQL API", async () => {
    const { body } = await postGraphQL(
      platform.baseUrl,
      `query { partnerCredentials(client_id: "${partner.client_id}") { keys { secret } } }`,
    );
    expect(body.data).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain(partner.secret);
  });
});

describe("bodies", () => {
  it("answers malformed JSON with 400, an oversize body with 413 and a foreign type with 415", async () => {
    const malformed = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", "{not json");
    expect(malformed.status).toBe(400);
    const oversize = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
      ...intent(),
      description: "x".repeat(1024 * 1024),
    });
    expect(oversize.status).toBe(413);
    expect(oversize.headers.get("x-ratelimit-limit")).not.toBeNull();
    const xml = await fetch(`${platform.baseUrl}/v1/payment_intents`, {
      method: "POST",
      headers: {
        "content-type": "application/xml",
        authorization: authorization(partner, "POST", "/v1/payment_intents", "<a/>"),
      },
      body: "<a/>",
    });
    expect(xml.status).toBe(415);
  });

  it("answers a JSON array or null body with 400", async () => {
    for (const payload of ["[]", "null"]) {
      const response = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", payload);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe("invalid_request");
    }
  });
});

describe("CORS for web views", () => {
  it("answers a preflight for an allowed origin on the payment-token endpoints", async () => {
    const preflight = await fetch(`${platform.baseUrl}/v1/payment_intents/pi_x/cancel`, {
      method: "OPTIONS",
      headers: { origin: webView, "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe(webView);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
  });

  it("grants nothing to other origins or on signed endpoints", async () => {
    const foreign = await fetch(`${platform.baseUrl}/v1/payment_intents/pi_x`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "GET" },
    });
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    const signedPath = await fetch(`${platform.baseUrl}/v1/payment_intents`, {
      method: "OPTIONS",
      headers: { origin: webView, "access-control-request-method": "POST" },
    });
    expect(signedPath.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("allows the web view's origin on a token request, errors included", async () => {
    const response = await call(platform.baseUrl, "GET", "/v1/payment_intents/pi_x?payment_token=bad", undefined, {
      origin: webView,
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBe(webView);
  });
});
