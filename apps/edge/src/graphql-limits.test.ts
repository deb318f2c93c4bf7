import { readFileSync } from "node:fs";
import { join } from "node:path";
import { QueryPlanner } from "@apollo/query-planner";
import type { ApolloServer } from "@apollo/server";
import { repositoryRoot, type SubgraphHost } from "@pos-cloud/common";
import { toAppError } from "@pos-cloud/rest-compat";
import { getIntrospectionQuery, parse, validate } from "graphql";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type GatewayContext, startGraphQL } from "./gateway";
import { defaultGraphQLLimits, documentRules, type GraphQLLimits, graphQLLimits } from "./graphql-limits";

const supergraphSdl = readFileSync(join(repositoryRoot, "schema", "supergraph.graphql"), "utf8");
const context = { contextValue: { caller: { type: "anonymous", scopes: [] } } as GatewayContext };

/** A subgraph played by the test: every fetch the gateway sends is recorded and answered by `answer`. */
function playedSubgraph(answer: (query: string) => unknown = () => ({ data: null })) {
  const queries: string[] = [];
  const host = {
    execute: async ({ query }: { query: string }) => {
      queries.push(query);
      return answer(query);
    },
  } as unknown as SubgraphHost;
  return { host, queries };
}

const running: ApolloServer<GatewayContext>[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

async function gateway(
  options: {
    limits?: Partial<GraphQLLimits>;
    schemaDetails?: boolean;
    portal?: ReturnType<typeof playedSubgraph>;
  } = {},
) {
  const portal = options.portal ?? playedSubgraph();
  const { server, apiSchema } = await startGraphQL({
    supergraphSdl,
    subgraphs: {
      portal: { host: portal.host },
      pos: { host: playedSubgraph().host },
      payments: { host: playedSubgraph().host },
    },
    internalToken: "internal",
    limits: graphQLLimits(options.limits),
    schemaDetails: options.schemaDetails ?? false,
  });
  running.push(server);
  const run = async (query: string, variables?: Record<string, unknown>) => {
    const response = await server.executeOperation({ query, variables }, context);
    if (response.body.kind !== "single") throw new Error("expected a single result");
    return { status: response.http.status ?? 200, ...response.body.singleResult };
  };
  return { run, apiSchema, portal };
}

/** Limits that never refuse, to show what one limit alone does. */
const unlimited = {
  maxDepth: 1_000,
  maxAliases: 1_000_000,
  maxTokens: 1_000_000,
  maxDirectives: 1_000_000,
  maxCost: Number.MAX_VALUE,
};

/** Issue 12: six levels of `merchants { stores { merchant { stores ... } } }` ran the platform out of memory. */
const sixLevels = "{ merchants { nodes { stores { merchant { stores { merchant { stores { id } } } } } } } }";
/** The same walk with six lists: 20^6 stores by the page-size estimate. */
const sixLists = `{ merchants { nodes { ${"stores { merchant { ".repeat(5)}stores { id } ${"} } ".repeat(5)}} } }`;
/** The portal's hierarchy read (issue 12), which the defaults must let through. */
const hierarchy =
  "{ psps { nodes { merchants { stores { id name open_orders_count payment_intents_count devices { id } } } } } }";

/**
 * Issue 14: about 1.5 KB of fragments, each spreading the next twice under two aliases. Unlimited, the planner
 * spent about 12 s on 9 levels and answered 500 ("Number of non-local selections exceeds limit") from 17.
 */
function fragmentChain(levels: number) {
  const fragments = Array.from({ length: levels }, (_, i) => {
    const next = i + 1 < levels ? `...F${i + 1}` : "id";
    return `fragment F${i} on Store { a: merchant { stores { ${next} } } b: merchant { stores { ${next} } } payment_intents_count }`;
  });
  return `query { stores { nodes { ...F0 } } }\n${fragments.join("\n")}`;
}

const refusal = (constraint: string) => ({
  extensions: { code: "GRAPHQL_VALIDATION_FAILED", details: expect.objectContaining({ constraint }) },
});

describe("the document limits", () => {
  it("are configuration: what is set replaces its default, unset values keep theirs", () => {
    expect(graphQLLimits({ maxDepth: 9, maxCost: undefined })).toEqual({ ...defaultGraphQLLimits, maxDepth: 9 });
  });

  it("let the portal's hierarchy, the REST-sized reads and the introspection query through by default", async () => {
    const { apiSchema } = await gateway();
    const rules = documentRules(defaultGraphQLLimits);
    for (const query of [
      hierarchy,
      "query ($limit: Int) { stores(limit: $limit) { nodes { id name merchant { name psp { code } } } } }",
      getIntrospectionQuery(),
    ]) {
      expect(validate(apiSchema(), parse(query, { maxTokens: defaultGraphQLLimits.maxTokens }), rules)).toEqual([]);
    }
  });

  it("refuse the six-level nesting with 400 before any subgraph is asked", async () => {
    const portal = playedSubgraph();
    const { run } = await gateway({ portal });
    const result = await run(sixLevels);
    expect(result.status).toBe(400);
    expect(result.errors).toEqual([expect.objectContaining(refusal("max_depth"))]);
    expect(portal.queries).toEqual([]);
  });

  it("count lists by their page size: six lists are refused by cost alone", async () => {
    const { run } = await gateway({ limits: { ...unlimited, maxCost: defaultGraphQLLimits.maxCost } });
    const result = await run(sixLists);
    expect(result.status).toBe(400);
    expect(result.errors).toEqual([expect.objectContaining(refusal("max_cost"))]);
  });

  it("count each object once per page of every list around it, a variable page as the largest page", async () => {
    const { apiSchema } = await gateway();
    const rules = documentRules({ ...defaultGraphQLLimits, maxCost: 0 });
    const costOf = (query: string) => /found (\d+)/.exec(validate(apiSchema(), parse(query), rules)[0]!.message)?.[1];
    // The page costs 1; a store and its merchant cost 2 (leaves are free), times the page size.
    expect(costOf("{ stores(limit: 1000) { nodes { id merchant { id } } } }")).toBe("2001");
    expect(costOf("query ($n: Int) { stores(limit: $n) { nodes { merchant { id } } } }")).toBe("201");
    expect(costOf("{ stores { total_count nodes { merchant { id } } } }")).toBe("41");
    expect(costOf("{ stores { nodes { merchant { stores { merchant { id } } } } } }")).toBe("841"); // 1 + 20 * (1 + 1 + 20 * 2)
    expect(costOf("query { ...Q } fragment Q on Query { a: stores { nodes { id } } b: stores { nodes { id } } }")).toBe(
      "42",
    );
  });

  it("refuse 2,000 aliases", async () => {
    const { run } = await gateway();
    const aliases = Array.from({ length: 2000 }, (_, i) => `a${i}: id`).join(" ");
    const result = await run(`{ store(id: 1) { ${aliases} } }`);
    expect(result.status).toBe(400);
    // The token limit stops such a document first; alone, the alias limit refuses it too.
    const aliasesOnly = await (await gateway({ limits: { ...unlimited, maxAliases: 15 } })).run(
      `{ store(id: 1) { ${aliases} } }`,
    );
    expect(aliasesOnly.status).toBe(400);
    expect(aliasesOnly.errors).toEqual([expect.objectContaining(refusal("max_aliases"))]);
  });

  it("refuse too many tokens while parsing and too many directives", async () => {
    const tokens = await (await gateway({ limits: { maxTokens: 50 } })).run(`{ store(id: 1) { ${"id ".repeat(60)} } }`);
    expect(tokens.status).toBe(400);
    expect(tokens.errors?.[0]?.extensions?.code).toBe("GRAPHQL_PARSE_FAILED");
    const { run } = await gateway();
    const directives = await run(`{ store(id: 1) { ${"id @include(if: true) ".repeat(25)} } }`);
    expect(directives.status).toBe(400);
    expect(directives.errors).toEqual([expect.objectContaining(refusal("max_directives"))]);
  });

  it.each([
    ["max_depth", { maxDepth: defaultGraphQLLimits.maxDepth }],
    ["max_aliases", { maxAliases: defaultGraphQLLimits.maxAliases }],
    ["max_cost", { maxCost: defaultGraphQLLimits.maxCost }],
  ])("expand fragments: %s alone refuses the fragment chain of issue 14", async (constraint, limit) => {
    const { run } = await gateway({ limits: { ...unlimited, ...limit } });
    const result = await run(fragmentChain(9));
    expect(result.status).toBe(400);
    expect(result.errors).toEqual([expect.objectContaining(refusal(constraint))]);
  });

  it("run before the gateway plans: a refused document never reaches the query planner", async () => {
    const planned = vi.spyOn(QueryPlanner.prototype, "buildQueryPlan");
    const { run } = await gateway();
    const query = fragmentChain(9);
    const started = performance.now();
    expect((await run(query)).status).toBe(400);
    expect(performance.now() - started).toBeLessThan(1000); // unlimited, the planner took about 12 s
    expect(planned).not.toHaveBeenCalled();
    await run("{ store(id: 1) { id } }");
    expect(planned).toHaveBeenCalledTimes(1);
  });

  it("answer a query planner refusal with 400, never 500", { timeout: 180_000 }, async () => {
    const { run } = await gateway({ limits: unlimited });
    const result = await run(fragmentChain(17));
    expect(result.status).toBe(400);
    expect(result.errors).toEqual([
      expect.objectContaining({ extensions: { code: "INVALID_REQUEST", details: { constraint: "query_plan" } } }),
    ]);
  });
});

describe("the time budget", () => {
  it("cuts an operation off with gateway_timeout (504, also for REST) and keeps serving", async () => {
    let release = () => {};
    const stuck = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const portal = playedSubgraph(async () => {
      calls += 1;
      if (calls === 1) await stuck;
      return { data: { store: { id: 1 } } };
    });
    const { run } = await gateway({ limits: { timeoutMs: 50 }, portal });
    const cut = await run("{ store(id: 1) { id } }");
    expect(cut.status).toBe(504);
    expect(cut.errors).toEqual([
      {
        message: "the operation did not finish within 50 ms",
        extensions: { code: "GATEWAY_TIMEOUT", details: { limit_ms: 50 } },
      },
    ]);
    expect(toAppError(cut.errors![0]!).status).toBe(504);
    release();
    expect(await run("{ store(id: 1) { id } }")).toMatchObject({ status: 200, data: { store: { id: 1 } } });
  });
});

describe("errors a client sees", () => {
  it("name no subgraph and hide unexpected failures", async () => {
    const portal = playedSubgraph((query) => {
      if (query.includes("psp")) throw new Error("connect ECONNREFUSED /srv/portal/internal.sock");
      return {
        data: null,
        errors: [{ message: "store not found", path: ["store"], extensions: { code: "not_found", details: {} } }],
      };
    });
    const { run } = await gateway({ portal });
    const missing = await run("{ store(id: 9) { id } }");
    expect(missing.errors).toEqual([
      { message: "store not found", path: ["store"], extensions: { code: "NOT_FOUND", details: {} } },
    ]);
    const broken = await run("{ psp(id: 1) { id } }");
    expect(broken.errors).toEqual([
      { message: "internal error", extensions: { code: "INTERNAL_SERVER_ERROR", details: {} } },
    ]);
    expect(JSON.stringify([missing, broken])).not.toMatch(/portal|serviceName|stacktrace/);
  });

  it("carry no introspection and no suggestions outside development", async () => {
    const { run } = await gateway({ schemaDetails: false });
    expect((await run("{ __schema { types { name } } }")).status).toBe(400);
    const typo = await run("{ store(id: 1) { nam } }");
    expect(typo.errors?.[0]?.message).toBe('Cannot query field "nam" on type "Store".');
  });

  it("carry both in development", async () => {
    const { run } = await gateway({ schemaDetails: true });
    const introspection = await run(getIntrospectionQuery());
    expect(introspection.errors).toBeUndefined();
    expect(introspection.data?.__schema).toBeDefined();
    const typo = await run("{ store(id: 1) { nam } }");
    expect(typo.errors?.[0]?.message).toMatch(/Did you mean "name"\?/);
  });

  it("refuse text PostgreSQL cannot store, in variables and in literals, naming the field", async () => {
    const portal = playedSubgraph();
    const { run } = await gateway({ portal });
    const query = "query ($code: String!) { activationStatus(activation_code: $code) { __typename } }";
    const variable = await run(query, { code: "lone \ud800" });
    expect(variable.status).toBe(400);
    expect(variable.errors?.[0]?.extensions).toEqual({
      code: "INVALID_REQUEST",
      details: { field: "code", constraint: "text" },
    });
    const literal = await run('{ activationStatus(activation_code: "a\\u0000") { __typename } }');
    expect(literal.status).toBe(400);
    expect(literal.errors?.[0]?.extensions).toEqual({
      code: "GRAPHQL_VALIDATION_FAILED",
      details: { field: "activation_code", constraint: "text" },
    });
    expect(portal.queries).toEqual([]);
  });
});
