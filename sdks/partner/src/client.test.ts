import { describe, expect, it } from "vitest";
import { createHmacVerifier } from "../../../rest-compat/src/hmac";
import { createPartnerClient, PartnerApiError } from "./index.ts";

const credentials = { clientId: "ck_test", secret: "sk_test_secret" };
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const intentBody = { amount: 500, currency: "JPY", payment_method_types: ["qr_mpm" as const], merchant_ref_id: "r1" };

/** A client over a scripted fetch: each request is recorded with its body, answered by `answer`. */
function scripted(answer: (attempt: number) => Response | Error, options: { scheme?: 1 | 2; retries?: number } = {}) {
  const sent: { request: Request; body: string }[] = [];
  const slept: number[] = [];
  let clock = 1_800_000_000_000;
  const client = createPartnerClient({
    baseUrl: "https://platform.test",
    ...credentials,
    ...options,
    now: () => clock,
    random: () => 1,
    sleep: async (ms) => {
      slept.push(ms);
      clock += Math.max(ms, 1000);
    },
    fetch: async (request) => {
      sent.push({ request, body: await request.clone().text() });
      const reply = answer(sent.length);
      if (reply instanceof Error) throw reply;
      return reply;
    },
  });
  return { client, sent, slept, now: () => clock };
}

describe("partner SDK requests", () => {
  it.each([1, 2] as const)("signs in scheme %i what the platform's verifier accepts", async (scheme) => {
    const { client, sent, now } = scripted(() => json(201, { id: "pi_1" }), { scheme });
    await client.POST("/v1/payment_intents", { body: intentBody });
    await client.GET("/v1/payment_intents", { params: { query: { status: "succeeded", limit: 5 } } });
    const verifier = createHmacVerifier({
      now,
      fetchSecrets: async () => ({
        client_partner_id: 7,
        keys: [
          {
            id: "k1",
            secret: credentials.secret,
            expires_at: new Date(now() + 1e9),
            revoked: false,
            permissions: [],
            store_ids: [],
          },
        ],
      }),
    });
    for (const { request, body } of sent) {
      const url = new URL(request.url);
      const verified = await verifier.verify({
        method: request.method,
        target: `${url.pathname}${url.search}`,
        rawBody: Buffer.from(body),
        authorization: request.headers.get("authorization") ?? undefined,
      });
      expect(verified.client_partner_id).toBe(7);
    }
    expect(new URL(sent[1]!.request.url).search).toBe("?status=succeeded&limit=5");
  });

  it("retries a 5xx of an idempotent write with one Idempotency-Key, signed anew, and stops after its retries", async () => {
    const { client, sent, slept } = scripted(() => json(503, { code: "unavailable", message: "busy", details: {} }), {
      retries: 2,
    });
    const refusal = await client.POST("/v1/payment_intents", { body: intentBody }).catch((error) => error);
    expect(refusal).toBeInstanceOf(PartnerApiError);
    expect(refusal).toMatchObject({ status: 503, code: "unavailable", message: "busy" });
    expect(sent).toHaveLength(3);
    const keys = new Set(sent.map(({ request }) => request.headers.get("idempotency-key")));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(sent.map(({ request }) => request.headers.get("authorization"))).size).toBe(3);
    expect(new Set(sent.map(({ body }) => body)).size).toBe(1);
    expect(slept).toEqual([200, 400]);
  });

  it("keeps the caller's Idempotency-Key through a network error", async () => {
    const { client, sent } = scripted((attempt) =>
      attempt === 1 ? new TypeError("fetch failed") : json(201, { id: "pi_2" }),
    );
    const { data } = await client.POST("/v1/payment_intents", {
      body: intentBody,
      params: { header: { "Idempotency-Key": "order-42" } },
    });
    expect(data).toEqual({ id: "pi_2" });
    expect(sent.map(({ request }) => request.headers.get("idempotency-key"))).toEqual(["order-42", "order-42"]);
  });

  it("sends a write its route does not make idempotent once, whatever befalls it", async () => {
    const { client, sent } = scripted(() => new TypeError("fetch failed"));
    await expect(client.POST("/v1/api_key/rotate")).rejects.toThrow("fetch failed");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.request.headers.get("idempotency-key")).toBeTruthy();
  });

  it("waits the Retry-After of a 429 before sending again", async () => {
    const { client, sent, slept } = scripted((attempt) =>
      attempt === 1
        ? json(429, { code: "rate_limit_exceeded", message: "slow down", details: {} }, { "retry-after": "7" })
        : json(200, []),
    );
    await client.GET("/v1/payment_intents");
    expect(slept).toEqual([7000]);
    expect(sent).toHaveLength(2);
  });

  it("throws a refusal with the platform's code and details, without retrying a 4xx", async () => {
    const { client, sent } = scripted(() =>
      json(400, { code: "invalid_request", message: "amount must be above 0", details: { field: "amount" } }),
    );
    await expect(client.POST("/v1/payment_intents", { body: { ...intentBody, amount: 0 } })).rejects.toMatchObject({
      status: 400,
      code: "invalid_request",
      details: { field: "amount" },
    });
    expect(sent).toHaveLength(1);
  });

  it("pages a list through Link: rel=next until a page has none", async () => {
    const { client, sent } = scripted((attempt) =>
      attempt === 1
        ? json(200, [{ id: "pi_a" }, { id: "pi_b" }], { link: '</v1/payment_intents?limit=2&after=c2>; rel="next"' })
        : json(200, [{ id: "pi_c" }]),
    );
    const ids: string[] = [];
    for await (const intent of client.paginate(() =>
      client.GET("/v1/payment_intents", { params: { query: { limit: 2 } } }),
    )) {
      ids.push(intent.id);
    }
    expect(ids).toEqual(["pi_a", "pi_b", "pi_c"]);
    expect(new URL(sent[1]!.request.url).search).toBe("?limit=2&after=c2");
  });
});
