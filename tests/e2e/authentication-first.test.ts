import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RestRoute, restRoutes } from "../../rest-compat/src/index";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { seed } from "../support/seed";

/*
 * The probe's finding: without a token, an unknown id answered 404 and an existing one 401, so anyone could learn
 * which ids exist; some routes checked the body before the caller. Every route of the route table that needs
 * credentials is sent without them, with ids that exist, ids that do not and ids that cannot, and with bodies that
 * are missing, no JSON, of the wrong types or of the wrong media type: the answer is 401 every time, the same.
 */

interface Body {
  type?: string;
  text?: string;
}
const bodies: Body[] = [
  {},
  { type: "application/json", text: "{" },
  { type: "application/json", text: JSON.stringify({ input: 1, amount: -1, store_id: "x", items: "none" }) },
  { type: "text/plain", text: "hello" },
];

/** What a route without its credentials answers: the partner API's signature or payment token, else a bearer. */
const refusalOf = (route: RestRoute) => (route.auth === "payment_token" ? "invalid_token" : "unauthorized");

describe("authentication comes before any lookup or body check, on every route", () => {
  let platform: TestPlatform;
  /** Ids that exist (a store's, a terminal's, a user's), one that could but does not, and ones that cannot. */
  let ids: string[];

  beforeAll(async () => {
    // Unlimited: the per-IP limit of unauthenticated callers would answer 429 long before the route table is done.
    const unlimited = 1_000_000;
    platform = await startTestPlatform({
      demo: false,
      rateLimits: { api: unlimited, ip: unlimited, merchant: unlimited, store: unlimited, global: unlimited },
    });
    const store = await seed(platform).store();
    const device = await seed(platform).device(store);
    const user = await seed(platform).user("STAFF", store);
    ids = [String(store.id), device.id, user.user_id, "00000000-0000-4000-8000-000000000000", "999999999", "abc"];
  }, 120_000);
  afterAll(() => platform?.close());

  it("answers 401 in the error format to every protected route of the route table without credentials", async () => {
    const protectedRoutes = restRoutes.filter((route) => !route.doc.anonymous);
    expect(protectedRoutes.length).toBeGreaterThan(80);
    const cases = protectedRoutes.flatMap((route) =>
      (route.path.includes(":") ? ids : ["-"]).flatMap((id) =>
        (route.method === "GET" || route.method === "DELETE" ? [{}] : bodies).map((body) => ({
          route,
          target: route.path.replace(/:\w+/g, (name) => (name === ":provider" ? "sandbox" : encodeURIComponent(id))),
          body,
        })),
      ),
    );
    const wrong: unknown[] = [];
    for (let i = 0; i < cases.length; i += 8) {
      const batch = cases.slice(i, i + 8);
      const answers = await Promise.all(
        batch.map(async ({ route, target, body }) => {
          const response = await fetch(`${platform.baseUrl}${target}`, {
            method: route.method,
            headers: body.type ? { "content-type": body.type } : {},
            body: body.text,
          });
          return { status: response.status, body: await response.json().catch(() => null) };
        }),
      );
      for (const [j, { status, body }] of answers.entries()) {
        const { route, target, body: sent } = batch[j]!;
        const expected = { code: refusalOf(route), message: expect.any(String), details: expect.any(Object) };
        if (status !== 401 || !expect.objectContaining(expected).asymmetricMatch(body))
          wrong.push({ route: `${route.method} ${route.path}`, target, sent: sent.text, status, body });
      }
    }
    expect(wrong).toEqual([]);
  }, 180_000);
});
