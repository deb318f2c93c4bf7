import { randomBytes } from "node:crypto";
import {
  ApolloClient,
  ApolloLink,
  CombinedGraphQLErrors,
  type ErrorLike,
  gql,
  HttpLink,
  InMemoryCache,
} from "@apollo/client";
import { SetContextLink } from "@apollo/client/link/context";
import { ErrorLink } from "@apollo/client/link/error";
import { createClient } from "graphql-ws";
import { from, mergeMap } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { demoUrls } from "../../apps/platform/src/demo";
import { signed } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

// Issue 22: what clients nobody here wrote (Apollo Client 4, graphql-ws) read of the platform's GraphQL answers.
describe("GraphQL as standard clients read it", () => {
  let platform: TestPlatform;
  let store: SeededStore;

  const manager = (lifetimeSeconds = 900) =>
    platform.portal.signingKeys.sign(
      "human",
      {
        iss: "pos-cloud-human",
        sub: randomBytes(16).toString("hex"),
        role: "STORE_MANAGER",
        psp_id: store.psp_id,
        merchant_id: store.merchant_id,
        store_id: store.id,
      },
      lifetimeSeconds,
    );

  /** Apollo Client 4 with the usual refresh: on UNAUTHENTICATED, take a new token and try once more. */
  function apolloClient(token: { current: string }, refresh: () => Promise<string>) {
    const refreshed: ErrorLike[] = [];
    const auth = new SetContextLink(() => ({ headers: { authorization: `Bearer ${token.current}` } }));
    const retry = new ErrorLink(({ error, operation, forward }) => {
      if (!CombinedGraphQLErrors.is(error)) return;
      if (!error.errors.some((each) => each.extensions?.code === "UNAUTHENTICATED")) return;
      refreshed.push(error);
      return from(refresh()).pipe(
        mergeMap((fresh) => {
          token.current = fresh;
          return forward(operation);
        }),
      );
    });
    const client = new ApolloClient({
      link: ApolloLink.from([retry, auth, new HttpLink({ uri: `${platform.baseUrl}/graphql` })]),
      cache: new InMemoryCache(),
    });
    return { client, refreshed };
  }

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false, rateLimits: { api: 1000 } });
    store = await seed(platform).store();
  });
  afterAll(() => platform?.close());

  it("answers an expired token with a GraphQL 401 UNAUTHENTICATED that Apollo Client refreshes on", async () => {
    const token = { current: await manager(-60) };
    const { client, refreshed } = apolloClient(token, () => manager());
    const answer = await client.query({ query: gql("{ stores { nodes { id } } }"), fetchPolicy: "network-only" });
    expect(answer.data).toEqual({
      stores: { __typename: "StorePage", nodes: [{ __typename: "Store", id: store.id }] },
    });
    expect(refreshed).toHaveLength(1);
    expect((refreshed[0] as CombinedGraphQLErrors).errors[0]).toMatchObject({
      extensions: { code: "UNAUTHENTICATED", details: { reason: "expired" } },
    });

    const raw = await fetch(`${platform.baseUrl}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer not.a.token" },
      body: JSON.stringify({ query: "{ __typename }" }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
    expect(await raw.json()).toEqual({
      errors: [{ message: expect.any(String), extensions: { code: "UNAUTHENTICATED", details: {} } }],
    });
  });

  it("answers a rate limit on /graphql as GraphQL, with Retry-After", async () => {
    // A fixed clock: the three requests fall in one window.
    const at = new Date();
    const limited = await startTestPlatform({ demo: false, clock: () => at, rateLimits: { api: 2 } });
    try {
      const post = () =>
        fetch(`${limited.baseUrl}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/graphql-response+json" },
          body: JSON.stringify({ query: "{ __typename }" }),
        });
      const answers = [await post(), await post(), await post()];
      const refused = answers.find((answer) => answer.status === 429);
      expect(refused).toBeDefined();
      expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused!.headers.get("content-type")).toMatch(/^application\/graphql-response\+json/);
      expect(await refused!.json()).toMatchObject({ errors: [{ extensions: { code: "RATE_LIMIT_EXCEEDED" } }] });
    } finally {
      await limited.close();
    }
  });

  it("lets a web view name its payment token as payment_token in connectionParams", async () => {
    const partner = await seed(platform).partner();
    const created = await signed(platform.baseUrl, partner, "POST", "/v1/payment_intents", {
      amount: 900,
      currency: "JPY",
      payment_method_types: ["qr_mpm"],
      merchant_ref_id: `ref-${randomBytes(6).toString("hex")}`,
      merchant_store_id: partner.store_code,
    });
    expect(created.status).toBe(201);
    const client = createClient({
      url: demoUrls(platform.baseUrl).graphql_ws_url,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { payment_token: created.body.payment_token.token },
    });
    try {
      const first = await new Promise((resolve, reject) => {
        const stop = client.subscribe(
          {
            query: `subscription($id: String!) { paymentIntentUpdated(id: $id) { id status } }`,
            variables: { id: created.body.id },
          },
          {
            next: (message) => {
              resolve(message);
              stop();
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      expect(first).toEqual({
        data: { paymentIntentUpdated: { id: created.body.id, status: "requires_payment_method" } },
      });
    } finally {
      await client.dispose();
    }
  });
});
