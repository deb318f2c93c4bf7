import { describe, expect, it } from "vitest";
import { createHmacVerifier, signatureV1, signatureV2 } from "./hmac";

const secret = "a".repeat(64);
const rotated = "b".repeat(64);
const at = 1_800_000_000;
const body = Buffer.from('{"amount":100}');

function verifier(secrets = [secret], revoked = () => false) {
  let fetches = 0;
  const verify = createHmacVerifier({
    fetchSecrets: async (clientId) => {
      fetches++;
      const keys = secrets.map((each, i) => ({
        id: `key_${i}`,
        secret: each,
        expires_at: "2100-01-01",
        revoked: revoked(),
        permissions: i === 0 ? [] : ["payment_intents:read"],
        store_ids: i === 0 ? [] : [100],
      }));
      return clientId === "cl_1" ? { client_partner_id: 7, keys } : null;
    },
    now: () => at * 1000,
  });
  return { verify: verify.verify, forgetSecrets: verify.forgetSecrets, fetches: () => fetches };
}

const partner7 = { client_partner_id: 7 };

const request = (signature: string, timestamp = at, target = "/v1/payment_intents?limit=5") => ({
  method: "POST",
  target,
  rawBody: body,
  authorization: `HMAC-SHA256 cl_1:${timestamp}:${signature}`,
});

describe("HMAC verification", () => {
  it("keeps a client_id's secrets until a revocation makes it forget them", async () => {
    let isRevoked = false;
    const { verify, forgetSecrets, fetches } = verifier([secret], () => isRevoked);
    const signed = request(signatureV1(secret, "POST", "/v1/payment_intents?limit=5", String(at), body));
    await verify(signed);
    isRevoked = true;
    await expect(verify(signed)).resolves.toMatchObject(partner7);
    expect(fetches()).toBe(1);
    forgetSecrets();
    await expect(verify(signed)).rejects.toMatchObject({ code: "api_key_revoked" });
    expect(fetches()).toBe(2);
  });

  it("accepts the spec's two schemes and names the partner", async () => {
    const { verify } = verifier();
    const target = "/v1/payment_intents?limit=5";
    await expect(verify(request(signatureV1(secret, "POST", target, String(at), body)))).resolves.toMatchObject(
      partner7,
    );
    await expect(verify(request(signatureV2(secret, "POST", target, String(at), body)))).resolves.toMatchObject(
      partner7,
    );
  });

  it("accepts either secret during a rotation", async () => {
    const { verify } = verifier([secret, rotated]);
    const target = "/v1/payment_intents?limit=5";
    await expect(verify(request(signatureV1(rotated, "POST", target, String(at), body)))).resolves.toMatchObject(
      partner7,
    );
  });

  it("carries the restriction of the key that signed, for the subgraph to enforce", async () => {
    const { verify } = verifier([secret, rotated]);
    const target = "/v1/payment_intents?limit=5";
    await expect(verify(request(signatureV1(rotated, "POST", target, String(at), body)))).resolves.toMatchObject({
      api_key_id: "key_1",
      permissions: ["payment_intents:read"],
      store_ids: [100],
    });
  });

  it("refuses the edge of the window plus one second, and accepts the edge", async () => {
    const { verify } = verifier();
    const sign = (ts: number) => signatureV1(secret, "POST", "/v1/payment_intents?limit=5", String(ts), body);
    await expect(verify(request(sign(at - 300), at - 300))).resolves.toMatchObject(partner7);
    await expect(verify(request(sign(at + 300), at + 300))).resolves.toMatchObject(partner7);
    await expect(verify(request(sign(at - 301), at - 301))).rejects.toMatchObject({ code: "unauthorized" });
    await expect(verify(request(sign(at + 301), at + 301))).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("names each signature for the replay check, for as long as its timestamp stays in the window", async () => {
    const { verify } = verifier();
    const sign = (ts: number) => signatureV1(secret, "POST", "/v1/payment_intents?limit=5", String(ts), body);
    const now = await verify(request(sign(at)));
    expect(now).toEqual({
      client_partner_id: 7,
      api_key_id: "key_0",
      permissions: [],
      store_ids: [],
      fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      ttl_seconds: 300,
    });
    expect((await verify(request(sign(at)))).fingerprint).toBe(now.fingerprint);
    const earlier = await verify(request(sign(at - 100), at - 100));
    expect(earlier.fingerprint).not.toBe(now.fingerprint);
    expect(earlier.ttl_seconds).toBe(200);
    expect((await verify(request(sign(at + 300), at + 300))).ttl_seconds).toBe(600);
    expect((await verify(request(sign(at - 300), at - 300))).ttl_seconds).toBe(1);
  });

  it("refuses another path, method or body, and unknown clients, all alike", async () => {
    const { verify } = verifier();
    const signature = signatureV1(secret, "POST", "/v1/payment_intents?limit=5", String(at), body);
    const failures = await Promise.allSettled([
      verify(request(signature, at, "/v1/payment_intents?limit=6")),
      verify({ ...request(signature), method: "GET" }),
      verify({ ...request(signature), rawBody: Buffer.from("{}") }),
      verify({ ...request(signature), authorization: `HMAC-SHA256 cl_2:${at}:${signature}` }),
      verify({ ...request(signature), authorization: undefined }),
    ]);
    for (const failure of failures) {
      expect(failure).toMatchObject({ status: "rejected", reason: { code: "unauthorized", details: {} } });
    }
    expect(new Set(failures.map((failure) => (failure as PromiseRejectedResult).reason.message)).size).toBe(1);
  });

  it("asks for a client's secrets once per cache period", async () => {
    const { verify, fetches } = verifier();
    const signature = signatureV1(secret, "POST", "/v1/payment_intents?limit=5", String(at), body);
    await verify(request(signature));
    await verify(request(signature));
    expect(fetches()).toBe(1);
  });
});
