import { openApiPath, restRoutes } from "@pos-cloud/rest-compat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../support/platform";

describe("API reference (issue 23)", () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform?.close());

  it("serves an OpenAPI 3.1 document of every REST route at /openapi.json", async () => {
    const response = await fetch(`${platform.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const document = (await response.json()) as any;
    expect(document.openapi).toBe("3.1.0");
    const served = Object.entries(document.paths as Record<string, object>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(served.sort()).toEqual(restRoutes.map((route) => `${route.method} ${openApiPath(route.path)}`).sort());

    const create = document.paths["/v1/payment_intents"].post;
    expect(create.security).toEqual([{ hmac: [] }, { hmacBase64: [] }]);
    expect(create.parameters).toContainEqual({ $ref: "#/components/parameters/Idempotency-Key" });
    expect(create.responses["201"].content["application/json"].schema.required).toContain("payment_token");
    const list = document.paths["/api/v1/orders"].get;
    expect(list.responses["200"].headers).toHaveProperty("X-Total-Count");
    expect(list.responses["200"].content["application/json"].schema.type).toBe("array");
    expect(list.parameters.map((parameter: { name: string }) => parameter.name)).toContain("store_id");
    expect(document.components.responses.ApiError404.content["application/json"].schema.required).toEqual([
      "code",
      "message",
      "details",
    ]);
  });

  it("serves a readable reference at /docs whose script comes from the platform itself", async () => {
    const page = await fetch(`${platform.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('spec-url="/openapi.json"');
    const script = html.match(/<script src="([^"]+)"/)?.[1];
    expect(script).toBe("/docs/assets/redoc.standalone.js");
    const bundle = await fetch(`${platform.baseUrl}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });
});
