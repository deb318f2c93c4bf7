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

describe("text PostgreSQL cannot store, in every field of every route", () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    const unlimited = 1_000_000;
    platform = await startTestPlatform({
      demo: false,
      rateLimits: { api: unlimited, ip: unlimited, merchant: unlimited, store: unlimited, global: unlimited },
    });
  }, 120_000);
  afterAll(() => platform?.close());

  it("is refused with 400 naming the field, never a 500, as each route's caller sends it", async () => {
    // The text check runs before any operation, so a token the edge accepts carries a request to it; a system
    // operator's is refused by no route before that, nor a partner's signature by any of the partner API's.
    const operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
    const partner = await seed(platform).partner();
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

    const send = ({ route, target, body }: Case) => {
      const { method, auth } = route.route;
      if (auth === "hmac") return signed(platform.baseUrl, partner, method, target, body);
      const token: Record<string, string> = target.startsWith("/v1/") ? {} : { authorization: `Bearer ${operator}` };
      return call(platform.baseUrl, method, target, body, token);
    };
    const cases = casesOf(routes);
    const wrong: unknown[] = [];
    // A few at a time: the machine is shared, and a batch keeps the run short.
    for (let i = 0; i < cases.length; i += 8) {
      const batch = cases.slice(i, i + 8);
      const answers = await Promise.all(batch.map(send));
      answers.forEach(({ status, body }, j) => {
        const { route, target, field } = batch[j]!;
        const refused = status === 400 && body?.code === "invalid_request" && body.details?.field === field;
        if (!refused) wrong.push({ route: `${route.route.method} ${route.path}`, target, field, status, body });
      });
    }
    expect(cases.length).toBeGreaterThan(500);
    expect(wrong).toEqual([]);
  }, 180_000);
});
