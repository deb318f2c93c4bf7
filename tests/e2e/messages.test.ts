import { sandboxMailbox } from "@pos-cloud/sandbox-messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoFile } from "../../apps/platform/src/demo";
import { uniqueCode } from "../support/environment";
import { demoUser, logIn, postJson, readDemo, startTestPlatform, type TestPlatform } from "../support/platform";

/** The mail the sandbox mail server received for `to`, once it is there. */
async function mailTo(platform: TestPlatform, to: string, subject: RegExp) {
  const box = sandboxMailbox(platform.dataDir);
  const find = () => box.list().find((message) => message.to.includes(to) && subject.test(message.subject));
  await expect.poll(find, { timeout: 15_000 }).toBeDefined();
  return find()!;
}

describe("messages that reach people, through the sandbox mail server and SMS relay", () => {
  let platform: TestPlatform;
  let demo: DemoFile;
  let merchantAdmin: string;

  beforeAll(async () => {
    platform = await startTestPlatform({ messageRetryDelaysMs: [200, 200] });
    demo = readDemo(platform.dataDir);
    merchantAdmin = (await logIn(platform.baseUrl, demoUser(demo, "MERCHANT_ADMIN"))).access_token;
  });
  afterAll(() => platform?.close());

  it("e-mails an MFA code over SMTP, and the code from that mail logs the user in", async () => {
    const email = `${uniqueCode("mgr").toLowerCase()}@example.com`;
    const password = "a long enough password";
    const created = await postJson(
      platform.baseUrl,
      "/api/v1/users",
      { role: "STORE_MANAGER", store_id: demo.store.id, password, mfa_channel: "email", email },
      merchantAdmin,
    );
    expect(created.status).toBe(201);
    const login = await postJson(platform.baseUrl, "/api/v1/auth/user/login", { email, password });
    expect(login.body).toMatchObject({ mfa_required: true, mfa_channel: "email" });
    const sent = await postJson(platform.baseUrl, "/api/v1/auth/user/mfa/send", { user_id: login.body.user_id });
    expect(sent.body).toMatchObject({ sent: true, channel: "email" });

    const mail = await mailTo(platform, email, /login code/);
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
    expect(code).toBeDefined();
    const verified = await postJson(platform.baseUrl, "/api/v1/auth/user/mfa/verify", {
      user_id: login.body.user_id,
      code,
    });
    expect(verified.status).toBe(200);
    expect(verified.body.access_token).toEqual(expect.any(String));
  });
});
