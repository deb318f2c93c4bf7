import { embeddedAcquirerControl } from "@pos-cloud/sandbox-acquirer";
import { embeddedSmsRelayControl, sandboxMailbox } from "@pos-cloud/sandbox-messages";
import type { JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DemoFile } from "../../apps/platform/src/demo";
import { deviceToken, humanToken } from "../support/device";
import { uniqueCode } from "../support/environment";
import { loggedDuring } from "../support/log";
import {
  demoUser,
  inProcessOnly,
  logIn,
  postJson,
  readDemo,
  startTestPlatform,
  type TestPlatform,
} from "../support/platform";

/** The message the sandbox mail server (or SMS relay) received for `to`, once it is there. */
async function mailTo(platform: TestPlatform, to: string, subject: RegExp) {
  const box = sandboxMailbox(platform.dataDir);
  const find = () => box.list().find((message) => message.to.includes(to) && subject.test(message.subject));
  await expect.poll(find, { timeout: 15_000 }).toBeDefined();
  return find()!;
}

type Device = { client_id: string; private_jwk: JWK };

/** The `pgw_message_delivery_total` line of SMS MFA codes with `status`, from the platform's /metrics. */
async function metricLine(platform: TestPlatform, status: string) {
  const text = await (await fetch(`${platform.adminUrl}/metrics`)).text();
  return text
    .split("\n")
    .find(
      (line) =>
        line.startsWith("pgw_message_delivery_total{") && line.includes('channel="sms"') && line.includes(status),
    );
}

describe("messages that reach people, through the sandbox mail server and SMS relay", () => {
  let platform: TestPlatform;
  let demo: DemoFile;
  let merchantAdmin: string;
  let manager: string;
  let terminal: string;
  const password = "a long enough password";

  /** A store manager of the demo store with MFA by e-mail or SMS, at the password step: its MFA code is sent. */
  async function codeSentTo(contact: { mfa_channel: "email"; email: string } | { mfa_channel: "sms"; phone: string }) {
    const created = await postJson(
      platform.baseUrl,
      "/api/v1/users",
      { role: "STORE_MANAGER", store_id: demo.store.id, password, ...contact },
      merchantAdmin,
    );
    expect(created.status).toBe(201);
    const login = await postJson(platform.baseUrl, "/api/v1/auth/user/login", {
      login_id: created.body.login_id,
      password,
    });
    expect(login.body).toMatchObject({ mfa_required: true, mfa_channel: contact.mfa_channel });
    const sent = await postJson(platform.baseUrl, "/api/v1/auth/user/mfa/send", { user_id: login.body.user_id });
    expect(sent.body).toMatchObject({ sent: true, channel: contact.mfa_channel });
    return login.body.user_id as string;
  }

  beforeAll(async () => {
    platform = await startTestPlatform({ messageRetryDelaysMs: [200, 200] });
    demo = readDemo(platform.dataDir);
    merchantAdmin = (await logIn(platform.baseUrl, demoUser(demo, "MERCHANT_ADMIN"))).access_token;
    const at = { psp_id: demo.psp.id, merchant_id: demo.merchant.id, store_id: demo.store.id };
    manager = await humanToken(platform.portal, { role: "STORE_MANAGER", ...at });
    terminal = await deviceToken(platform.baseUrl, (demo as DemoFile & { device: Device }).device);
  });
  afterAll(() => platform?.close());

  it("e-mails an MFA code over SMTP, and the code from that mail logs the user in", async () => {
    const email = `${uniqueCode("mgr").toLowerCase()}@example.com`;
    const userId = await codeSentTo({ mfa_channel: "email", email });
    const mail = await mailTo(platform, email, /login code/);
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
    expect(code).toBeDefined();
    const verified = await postJson(platform.baseUrl, "/api/v1/auth/user/mfa/verify", { user_id: userId, code });
    expect(verified.status).toBe(200);
    expect(verified.body.access_token).toEqual(expect.any(String));
  });

  /** A customer of the demo merchant who takes receipts by `contact`, and a terminal's cash sale of 2 x ramen to them. */
  async function saleTo(contact: { email: string } | { phone: string }, receipt_delivery: "email" | "sms") {
    const customer = await postJson(
      platform.baseUrl,
      "/api/v1/customers",
      { name: "Receipt Guest", ...contact, preferences: { receipt_delivery } },
      manager,
    );
    expect(customer.status).toBe(201);
    const order = await postJson(
      platform.baseUrl,
      "/orders",
      {
        order_type: "takeaway",
        customer_id: customer.body.id,
        items: [{ sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 }],
      },
      terminal,
    );
    const bill = await postJson(
      platform.baseUrl,
      "/bills",
      { order_id: order.body.id, staff_code: demoUser(demo, "STAFF").login_id, tax_percentage: 10 },
      terminal,
    );
    const paid = await postJson(
      platform.baseUrl,
      "/payments",
      { bill_id: bill.body.id, amount: bill.body.total_amount, payment_method: { type: "CASH" }, cash_received: 5000 },
      terminal,
    );
    expect(paid.body).toMatchObject({ status: "completed" });
  }

  it("e-mails a receipt to a customer who chose e-mail receipts when the payment completes", async () => {
    const email = `${uniqueCode("guest").toLowerCase()}@example.com`;
    await saleTo({ email }, "email");
    const mail = await mailTo(platform, email, /^Your receipt R\d{8}-\d{4} from Demo Store Shibuya$/);
    expect(mail.text).toContain("Ramen");
    expect(sandboxMailbox(platform.dataDir).show(mail.id)?.raw).toMatch(
      /^Reply-To: shibuya@demo\.pos-cloud\.localhost/m,
    );
  });

  it("texts a receipt to a customer who chose SMS receipts, through the SMS relay", async () => {
    const phone = `+8180${String(Date.now()).slice(-8, -2)}55`;
    await saleTo({ phone }, "sms");
    const sms = await mailTo(platform, phone, /^$/);
    expect(sms.text).toMatch(/^Demo Store Shibuya: receipt R\d{8}-\d{4}, ¥2,156 paid on \d{4}-\d\d-\d\d \d\d:\d\d\./);
  });

  it("e-mails the store's contact when the card settlement exchange keeps failing", async () => {
    const date = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(new Date());
    const settlement = await postJson(
      platform.baseUrl,
      "/api/v1/settlements",
      { store_id: demo.store.id, date },
      manager,
    );
    expect(settlement.status).toBe(201);
    // The sandbox acquirer refuses both attempts (the first and one retry, due at once). Under TEST_WIRING=cluster,
    // `platform.pos` is POS opened in this process on the cluster's database and sandboxes, since the workers'
    // exchange runs at 02:00 only: the store's contact comes from the cluster's portal, the mail goes to its server.
    embeddedAcquirerControl(platform.dataDir).refuseNextLogins(2);
    platform.pos.cardExchange.configure({ retryDelaysMs: [0] });
    expect(await platform.pos.cardExchange.run(date, { storeId: demo.store.id })).toMatchObject([
      { status: "retrying", attempts: 1 },
    ]);
    expect(await platform.pos.cardExchange.retryDue()).toMatchObject([{ status: "failed", attempts: 2 }]);
    const mail = await mailTo(
      platform,
      "shibuya@demo.pos-cloud.localhost",
      new RegExp(`^Card settlement exchange failed: store ${demo.store.id}, ${date}$`),
    );
    expect(mail.text).toContain("failed 2 times");
  });

  /** The portal's outgoing message to `to`: the record a failure leaves. */
  const messageRow = async (to: string) =>
    (
      await platform.portal.db.query<{ status: string; attempts: number; last_error: string }>(
        "SELECT status, attempts, last_error FROM outgoing_messages WHERE recipient = $1",
        [to],
      )
    )[0];

  // The log and the sandbox relay's control are this process's.
  inProcessOnly("retries an SMS the relay refused, then gives up on one it keeps refusing with an alert", async () => {
    const relay = embeddedSmsRelayControl(platform.dataDir);
    relay.failNext(2);
    const phone = `+8190${String(Date.now()).slice(-8, -2)}55`;
    await codeSentTo({ mfa_channel: "sms", phone });
    const sms = await mailTo(platform, phone, /^$/);
    expect(sms.text).toMatch(/login code is \d{6}/);
    expect(relay.read().fail_next).toBe(0);

    // Numbers ending in 13 are refused every time: three attempts (the test's retries: 200 ms, 200 ms), then an alert.
    const refused = `+8190${String(Date.now()).slice(-8, -2)}13`;
    const log = await loggedDuring(async () => {
      await codeSentTo({ mfa_channel: "sms", phone: refused });
      await expect.poll(() => messageRow(refused), { timeout: 15_000 }).toMatchObject({ status: "failed" });
    });
    const alert = log
      .split("\n")
      .filter((line) => line.includes('"message_undeliverable"'))
      .map((line) => JSON.parse(line));
    expect(alert).toEqual([expect.objectContaining({ level: "error", kind: "mfa_code", channel: "sms", attempts: 3 })]);
    expect(JSON.stringify(alert)).not.toMatch(/login code is/);
    expect(await messageRow(refused)).toMatchObject({ attempts: 3, last_error: expect.stringContaining("502") });
    for (const status of ["retried", "failed"])
      expect(await metricLine(platform, `status="${status}"`)).toMatch(/ [1-9]\d*$/);
  });
});
