import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRETS_CACHE_MS } from "../../rest-compat/src/hmac";
import { authorization, type Credentials } from "../support/gateway";
import { logIn, postJson, startTestPlatform, type TestPlatform } from "../support/platform";
import { seed } from "../support/seed";

// Issue 32: a revoked API key kept signing for up to 30 s, as long as an edge process kept its secrets. The cluster
// runs two edge processes on one port, which take new connections in turn: each call here opens its own connection,
// so a batch of them reaches every edge process, not only the one the revocation went through.

/** A signed list of the partner's intents on a connection of its own; the answer's status and error code. */
function signedListOnNewConnection(baseUrl: string, key: Credentials) {
  const path = "/v1/payment_intents";
  return new Promise<{ status: number; code: string | undefined }>((resolve, reject) => {
    const sent = request(
      new URL(path, baseUrl),
      { method: "GET", agent: false, headers: { authorization: authorization(key, "GET", path, "") } },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode!, code: JSON.parse(text || "{}").code }));
      },
    );
    sent.on("error", reject).end();
  });
}

/** Enough calls that every edge process of the cluster gets some (two take connections in turn). */
const BATCH = 6;

describe("a revoked API key", () => {
  let platform: TestPlatform;
  let operator: string;
  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
    const store = await seed(platform).store();
    operator = (await logIn(platform.baseUrl, await seed(platform).user("SYSTEM_OP", store))).access_token;
  });
  afterAll(() => platform?.close());

  const batch = (key: Credentials) =>
    Promise.all(Array.from({ length: BATCH }, () => signedListOnNewConnection(platform.baseUrl, key)));

  /** A partner with a key whose secrets every edge process holds: each has verified a signature with it. */
  async function partnerWithCachedKey(name: string) {
    const partner = (await postJson(platform.baseUrl, "/api/v1/partners", { name }, operator)).body;
    const issued = await postJson(platform.baseUrl, `/api/v1/partners/${partner.id}/api-keys`, {}, operator);
    expect(issued.status).toBe(201);
    const key: Credentials & { id: string } = issued.body;
    expect((await batch(key)).map((answer) => answer.status)).toEqual(Array(BATCH).fill(200));
    return { partner_id: partner.id as number, key };
  }

  /** An operator's DELETE over REST; the time it was sent. */
  async function remove(path: string) {
    const at = Date.now();
    const answer = await fetch(`${platform.baseUrl}${path}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${operator}` },
    });
    expect(answer.status).toBe(200);
    return at;
  }

  /** Waits until every call of a batch is refused as revoked; how long that took after `since`. */
  async function refusedEverywhere(key: Credentials, since: number) {
    await expect
      .poll(async () => (await batch(key)).map((answer) => `${answer.status} ${answer.code}`), {
        timeout: 10_000,
        interval: 50,
      })
      .toEqual(Array(BATCH).fill("401 api_key_revoked"));
    return Date.now() - since;
  }

  it("is refused by every edge process within about a second, not once their cached secrets run out", async () => {
    const { partner_id, key } = await partnerWithCachedKey("Revoked soon");
    const revokedAt = await remove(`/api/v1/partners/${partner_id}/api-keys/${key.id}`);
    expect(await refusedEverywhere(key, revokedAt)).toBeLessThan(SECRETS_CACHE_MS);
  });

  it("is refused as soon when its partner is deactivated with all its keys", async () => {
    const { partner_id, key } = await partnerWithCachedKey("Deactivated soon");
    const deactivatedAt = await remove(`/api/v1/partners/${partner_id}`);
    expect(await refusedEverywhere(key, deactivatedAt)).toBeLessThan(SECRETS_CACHE_MS);
  });
});
