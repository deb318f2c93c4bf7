import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../support/platform";

/** 100,000 levels: what crashed the recursive text check (issue 21). */
const deep = (levels = 100_000) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

const postRaw = async (baseUrl: string, path: string, body: string) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
};

describe("JSON nested deeper than 64 levels", () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ demo: false });
  }, 120_000);
  afterAll(() => platform?.close());

  it("is refused with 400 max_depth on every body-reading endpoint, and the server keeps serving", async () => {
    const paths = [
      "/api/v1/auth/user/login",
      // With a token: a web view's route refuses a caller without one before reading the body.
      "/v1/payment_intents/x/confirm?payment_token=pt_x",
      "/v1/webhooks/sandbox",
      "/api/v1/auth/device/token",
    ];
    for (const path of paths) {
      const answer = await postRaw(platform.baseUrl, path, deep());
      expect({ path, ...answer }).toMatchObject({
        path,
        status: 400,
        body: { code: "invalid_request", message: expect.any(String), details: { constraint: "max_depth" } },
      });
    }
    expect((await fetch(`${platform.baseUrl}/health`)).status).toBe(200);
  });

  it("is refused on /graphql with GraphQL's errors, in the body or its variables", async () => {
    const bodies = [
      `{"query":"{ __typename }","variables":{"input":${deep()}}}`,
      `{"query":"{ __typename }","extensions":${deep()}}`,
    ];
    for (const body of bodies) {
      const answer = await postRaw(platform.baseUrl, "/graphql", body);
      expect(answer).toMatchObject({
        status: 400,
        body: { errors: [{ extensions: { code: "INVALID_REQUEST", details: { constraint: "max_depth" } } }] },
      });
    }
    const graphql = await postRaw(platform.baseUrl, "/graphql", JSON.stringify({ query: "{ __typename }" }));
    expect(graphql).toMatchObject({ status: 200, body: { data: { __typename: "Query" } } });
  });

  it("passes 64 levels on to the route, which answers as for any other body", async () => {
    const answer = await postRaw(platform.baseUrl, "/api/v1/auth/user/login", deep(63));
    expect(answer.status).toBe(400);
    expect(answer.body.details.constraint).not.toBe("max_depth");
  });
});
