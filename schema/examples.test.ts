import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  demoUser,
  logIn,
  postGraphQL,
  readDemo,
  startTestPlatform,
  type TestPlatform,
} from "@pos-cloud/test-support/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const examplesDir = join(import.meta.dirname, "examples");
const examples = readdirSync(examplesDir).filter((file) => file.endsWith(".graphql"));

// The example queries a portal UI starts from run, within the edge's limits, against the demo tenant.
describe("schema/examples", () => {
  let platform: TestPlatform;
  let token: string;

  beforeAll(async () => {
    platform = await startTestPlatform();
    token = (await logIn(platform.baseUrl, demoUser(readDemo(platform.dataDir), "PSP_ADMIN"))).access_token;
  });
  afterAll(() => platform?.close());

  it.each(examples)("%s answers without errors", async (file) => {
    const { status, body } = await postGraphQL(
      platform.baseUrl,
      readFileSync(join(examplesDir, file), "utf8"),
      {},
      token,
    );
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    expect(JSON.stringify(body.data)).toMatch(/"id":/);
  });
});
