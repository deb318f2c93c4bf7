import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRoutes } from "../../rest-compat/src/index";
import { humanToken } from "../support/device";
import { call, signed } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type RouteFields, routeFields } from "../support/request-fields";
import { seed } from "../support/seed";

/** Text PostgreSQL refuses, as a JSON string (`JSON.stringify` writes the lone surrogate as the escape `\ud800`) ... */
const badStrings = { nul: "\u0000", surrogate: "\ud800" };
/** ... and as a query string or path writes it. */
const badEscapes = { nul: "%00", surrogate: "%ED%A0%80" };

interface Case {
  route: RouteFields;
  target: string;
  body?: unknown;
  field: string;
}

/** `{a: {b: [value]}}` for `a.b.0`. */
function bodyWith(path: string, value: string): unknown {
  return path
    .split(".")
    .reverse()
    .reduce<unknown>((inner, key) => (/^\d+$/.test(key) ? [inner] : { [key]: inner }), value);
}

/**
 * Ids no row can have: text where a UUID or an integer is kept, a UUID with a letter past f, an integer past
 * PostgreSQL's (and JavaScript's) range, a negative one.
 */
const malformedIds = ["abc", "00000000-0000-0000-0000-00000000000g", "99999999999999999999", "-1"];

/** The route's path with every parameter set, one of them (if named) to `bad`. */
const pathOf = ({ path, params }: RouteFields, bad?: { param: string; escape: string }) =>
  params.reduce(
    (target, param) =>
      target.replace(`:${param}`, param === bad?.param ? bad.escape : param === "provider" ? "sandbox" : "1"),
    path,
  );

/** Every string field of every body, every query parameter and every path parameter of every route, twice. */
function casesOf(routes: RouteFields[]): Case[] {
  return routes.flatMap((route) =>
    (["nul", "surrogate"] as const).flatMap((kind) => [
      ...route.params.map((param) => ({
        route,
        target: pathOf(route, { param, escape: badEscapes[kind] }),
        body: route.route.method === "GET" || route.route.method === "DELETE" ? undefined : {},
        field: param,
      })),
      ...route.query.map((name) => ({ route, target: `${pathOf(route)}?${name}=${badEscapes[kind]}`, field: name })),
      ...route.body.map((field) => ({ route, target: pathOf(route), body: bodyWith(field, badStrings[kind]), field })),
    ]),
  );
}

/** Every path parameter of every route, set to each malformed id in turn, the others to an id that could exist. */
const malformedIdCases = (routes: RouteFields[]): Case[] =>
  routes.flatMap((route) =>
    route.params.flatMap((param) =>
      malformedIds.map((id) => ({
        route,
        target: pathOf(route, { param, escape: encodeURIComponent(id) }),
        body: route.route.method === "GET" || route.route.method === "DELETE" ? undefined : {},
        field: param,
      })),
    ),
  );

describe("text PostgreSQL cannot store, in every field of every route", () => {
  let platform: TestPlatform;
  let operator: string;
  let partner: Awaited<ReturnType<ReturnType<typeof seed>["partner"]>>;

  /**
   * Each route as its caller sends it: signed by the partner, with a payment token (one the edge cannot tell from a
   * real one), or with a system operator's token.
   */
  const send = ({ route, target, body }: Case) => {
    const { method, auth } = route.route;
    if (auth === "hmac") return signed(platform.baseUrl, partner, method, target, body);
    const bearer = auth === "payment_token" ? "pt_probe" : target.startsWith("/v1/") ? undefined : operator;
    return call(platform.baseUrl, method, target, body, bearer ? { authorization: `Bearer ${bearer}` } : {});
  };

  /** The answers to the cases, a few at a time: the machine is shared, and a batch keeps the run short. */
  async function answersTo(cases: Case[]) {
    const answers: { kase: Case; status: number; body: any }[] = [];
    for (let i = 0; i < cases.length; i += 8) {
      const batch = cases.slice(i, i + 8);
      const sent = await Promise.all(batch.map(send));
      answers.push(...sent.map(({ status, body }, j) => ({ kase: batch[j]!, status, body })));
    }
    return answers;
  }

  beforeAll(async () => {
    const unlimited = 1_000_000;
    platform = await startTestPlatform({
      demo: false,
      rateLimits: { api: unlimited, ip: unlimited, merchant: unlimited, store: unlimited, global: unlimited },
    });
    // The checks run before any operation, so a token the edge accepts carries a request to them; a system
    // operator's is refused by no route before that, nor a partner's signature by any of the partner API's.
    operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
    partner = await seed(platform).partner();
  }, 120_000);
  afterAll(() => platform?.close());

  it("is refused with 400 naming the field, never a 500, as each route's caller sends it", async () => {
    const routes = await routeFields(restRoutes);
    // A route with nothing to put text in says why; none is left out without a reason.
    const untested = routes
      .filter((route) => route.params.length + route.query.length + route.body.length === 0)
      .map((route) => `${route.route.method} ${route.path}: ${route.reasons.join("; ")}`);
    expect(untested).toEqual([
      "GET /api/v1/jwks/human: reads no query parameter",
      "GET /api/v1/jwks/device: reads no query parameter",
      "GET /v1/api_key/webhook: reads no query parameter",
      "DELETE /v1/api_key/webhook: reads no query parameter",
      "POST /v1/api_key/webhook/secret: passes no body field on as text (at most the raw bytes)",
      "POST /v1/api_key/rotate: passes no body field on as text (at most the raw bytes)",
    ]);

    const cases = casesOf(routes);
    const wrong: unknown[] = [];
    for (const { kase, status, body } of await answersTo(cases)) {
      const { route, target, field } = kase;
      const refused = status === 400 && body?.code === "invalid_request" && body.details?.field === field;
      if (!refused) wrong.push({ route: `${route.route.method} ${route.path}`, target, field, status, body });
    }
    expect(cases.length).toBeGreaterThan(500);
    expect(wrong).toEqual([]);
  }, 180_000);

  it("answers a malformed id in any path parameter with a 4xx in the error format, never a 500", async () => {
    const cases = malformedIdCases(await routeFields(restRoutes));
    const wrong: unknown[] = [];
    for (const { kase, status, body } of await answersTo(cases)) {
      const { route, target } = kase;
      const formatted = typeof body?.code === "string" && typeof body.message === "string" && body.details;
      // 404 (names nothing) or 400 (cannot be an id at all); 401/403 where the route refuses this caller first.
      if (status >= 500 || status < 400 || !formatted)
        wrong.push({ route: `${route.route.method} ${route.path}`, target, status, body });
    }
    expect(cases.length).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  }, 180_000);
});
