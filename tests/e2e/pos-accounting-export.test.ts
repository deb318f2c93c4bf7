import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedSftpControl, newSshKeyPair, startEmbeddedSftp } from "../../apps/sandbox-sftp/src/embedded";
import { deviceToken, humanToken } from "../support/device";
import { clusterWiring } from "../support/environment";
import { loggedDuring } from "../support/log";
import { movableClock } from "../support/payments";
import { callJson, inProcessOnly, postGraphQL, startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";
import { sshFingerprint } from "../support/ssh-fingerprint";

/** The business date of a moment in Asia/Tokyo, the stores' business clock. */
const businessDate = (at: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Tokyo" }).format(at);
/** Milliseconds from `at` to the next midnight in Asia/Tokyo (UTC+9, no daylight saving). */
const untilTokyoMidnight = (at: Date) => 86_400_000 - ((at.getTime() + 9 * 3_600_000) % 86_400_000);
const THIRTY_MINUTES = 30 * 60_000;

/** What the sandbox SFTP server keeps about itself: where it listens and its one account. */
interface SftpSandbox {
  base_url: string;
  host_key: string;
  account: { username: string; password: string };
  client_private_key: string;
}

const CONFIGURE = `mutation ($input: ConfigureAccountingExportInput!) { configureAccountingExport(input: $input) {
  merchant_id format host port username path auth_method host_key_fingerprint } }`;
const RESEND = `mutation ($input: ResendAccountingExportInput!) { resendAccountingExport(input: $input) {
  id store_id date file_name format status attempts last_error next_attempt_at delivered_at } }`;
const STORE_DAY = `query ($store_id: Int, $date: String) { storeDay(store_id: $store_id, date: $date) {
  settlement { id status } gross_amount refund_amount net_amount payment_count refund_count } }`;

// A store's day of cash sales and a refund through REST; at 00:00 Asia/Tokyo its file goes to the merchant's SFTP
// server (the sandbox) in the merchant's format; refusals are retried every 30 minutes of the platform's clock.
describe("the accounting export: daily settlement files by SFTP", () => {
  const clock = movableClock();
  let platform: TestPlatform;
  let store: SeededStore;
  let sftp: SftpSandbox;
  let day: string;
  let table = 0;

  const call = (method: string, path: string, token: string, body?: unknown) =>
    callJson(platform.baseUrl, method, path, token, body);
  /** The merchant's admin, with a token of the platform's present (the tests move its clock by hours). */
  const admin = () =>
    humanToken(platform.portal, { role: "MERCHANT_ADMIN", psp_id: store.psp_id, merchant_id: store.merchant_id });
  const graphql = async (query: string, variables: Record<string, unknown>, token?: string) =>
    (await postGraphQL(platform.baseUrl, query, variables, token ?? (await admin()))).body;
  const target = (settings: Record<string, unknown>) => ({
    merchant_id: store.merchant_id,
    host: "127.0.0.1",
    port: Number(new URL(sftp.base_url).port),
    username: sftp.account.username,
    ...settings,
  });
  const exportPath = () => `/api/v1/merchants/${store.merchant_id}/accounting-export`;
  const configure = async (settings: Record<string, unknown>) => {
    const { merchant_id: _, ...body } = target(settings);
    const answer = await call("PUT", exportPath(), await admin(), body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const resend = async () => {
    const answer = await call("POST", "/api/v1/accounting-export/resend", await admin(), {
      store_id: store.id,
      date: day,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const fileName = (format: string) =>
    `settlement_${store.merchant_id}_${store.id}_${day.replaceAll("-", "")}.${format}`;
  const received = (format: string) =>
    readFileSync(join(platform.dataDir, "sandbox-sftp", "files", fileName(format)), "utf8");
  const arrivals = (format: string) =>
    embeddedSftpControl(platform.dataDir)
      .received()
      .filter((file) => file.path === `/${fileName(format)}`).length;
  const delivery = async () => {
    const list = await call("GET", `${exportPath()}/deliveries?store_id=${store.id}&date=${day}`, await admin());
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    return list.body[0];
  };
  /** Moves the platform's clock 30 minutes and runs the registry's retry pass. */
  const thirtyMinutesLater = async () => {
    clock.advance(THIRTY_MINUTES);
    await platform.jobs!.trigger("accounting-export-retries");
  };
  let sold: { payments: number[]; refund: number };

  beforeAll(async () => {
    // The sales fall on yesterday in Tokyo (at noon, by the platform's clock), a day that has ended for real time too,
    // so the operator's command (which runs on the real clock) may send it as well. A cluster's processes keep the
    // real clock: there only the checks that move no clock run.
    if (!clusterWiring) clock.advance(untilTokyoMidnight(clock()) - 36 * 3_600_000);
    day = businessDate(clock());
    platform = await startTestPlatform({ clock, demo: false });
    sftp = JSON.parse(readFileSync(join(platform.dataDir, "sandbox-sftp", "config.json"), "utf8"));
    store = await seed(platform).store({ sells: true });
    const terminal = await deviceToken(platform.baseUrl, await seed(platform).device(store), clock());
    const staffCode = (await seed(platform).user("STAFF", store)).login_id;
    const leader = await seed(platform).user("STAFF_LEADER", store);
    /** A billed order of 2 x 980 + 480 with 10% tax (244): 2684, paid in cash. */
    const cashSale = async () => {
      const order = await call("POST", "/api/v1/orders", terminal, {
        order_type: "dine_in",
        table_number: `A${++table}`,
        items: [
          { sequence: 1, item_name: "Ramen", quantity: 2, unit_price: 980 },
          { sequence: 2, item_name: "Gyoza", quantity: 1, unit_price: 480 },
        ],
      });
      const bill = await call("POST", "/api/v1/bills", terminal, {
        order_id: order.body.id,
        staff_code: staffCode,
        tax_percentage: 10,
      });
      const paid = await call("POST", "/api/v1/payments", terminal, {
        bill_id: bill.body.id,
        amount: 2684,
        payment_method: { type: "CASH" },
        cash_received: 3000,
      });
      expect(paid.body).toMatchObject({ status: "completed" });
      return paid.body.id as string;
    };
    const first = await cashSale();
    await cashSale();
    const refund = await call("POST", `/api/v1/payments/${first}/refund`, terminal, {
      refund_amount: 684,
      reason: "cold ramen",
      staff_code: leader.login_id,
      staff_pin: leader.pin,
    });
    expect(refund.status).toBe(201);
    sold = { payments: [2684, 2684], refund: 684 };
    // The day ends: the platform's clock is back at the real time.
    clock.advance(Date.now() - clock().getTime());
    platform.pos.accountingExports.configure({ timeoutMs: 5000 });
  });
  afterAll(() => platform?.close());

  /** The day as the POS reports it: its closed settlement's totals. */
  const storeDay = async () => {
    const answer = await graphql(STORE_DAY, { store_id: store.id, date: day });
    expect(answer.data.storeDay.settlement).toMatchObject({ status: "closed" });
    return answer.data.storeDay;
  };

  it("refuses bad settings and callers other than the merchant's admin and operators, changing nothing", async () => {
    const other = await seed(platform).store();
    const refusals: [Record<string, unknown>, string][] = [
      [{ format: "pdf", password: "x" }, "format"],
      [{ format: "csv" }, "password"],
      [{ format: "csv", password: "x", private_key: sftp.client_private_key }, "password"],
      [{ format: "csv", private_key: "not a key" }, "private_key"],
      [{ format: "csv", password: "x", path: "relative/folder" }, "path"],
      [{ format: "csv", password: "x", port: 70000 }, "port"],
      [{ format: "csv", password: "x", host: "sftp://example.com/" }, "host"],
      [{ format: "csv", password: "x", host_key_fingerprint: "SHA256:not-a-fingerprint" }, "host_key_fingerprint"],
    ];
    for (const [settings, field] of refusals) {
      const answer = await graphql(CONFIGURE, { input: target(settings) });
      expect(answer.errors?.[0]?.extensions, JSON.stringify(settings)).toMatchObject({
        code: "INVALID_REQUEST",
        details: { field: expect.stringContaining(field) },
      });
    }
    const manager = await humanToken(platform.portal, {
      role: "STORE_MANAGER",
      psp_id: store.psp_id,
      merchant_id: store.merchant_id,
      store_id: store.id,
    });
    const otherAdmin = await humanToken(platform.portal, {
      role: "MERCHANT_ADMIN",
      psp_id: other.psp_id,
      merchant_id: other.merchant_id,
    });
    for (const token of [manager, otherAdmin]) {
      const answer = await graphql(CONFIGURE, { input: target({ format: "csv", password: "x" }) }, token);
      expect(answer.errors?.[0]?.extensions).toMatchObject({ code: "FORBIDDEN" });
    }
    // Nothing was written: there is no export to read, nothing to send.
    expect(await call("GET", exportPath(), await admin())).toMatchObject({ status: 404, body: { code: "not_found" } });
    const badPort = await call("PUT", exportPath(), await admin(), {
      ...target({ format: "csv", password: "x" }),
      port: 0,
    });
    expect(badPort).toMatchObject({ status: 400, body: { code: "invalid_request", details: { field: "port" } } });
    const badFingerprint = await call("PUT", exportPath(), await admin(), {
      ...target({ format: "csv", password: "x" }),
      host_key_fingerprint: "MD5:16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48",
    });
    expect(badFingerprint).toMatchObject({
      status: 400,
      body: { code: "invalid_request", details: { field: "host_key_fingerprint" } },
    });
    const refused = await graphql(RESEND, { input: { store_id: store.id, date: "2026-01-05" } });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: "INVALID_STATE" });
    for (const date of ["2026-02-30", businessDate(clock())]) {
      const early = await call("POST", "/api/v1/accounting-export/resend", await admin(), { store_id: store.id, date });
      expect(early, date).toMatchObject({ status: 400, body: { details: { field: "date" } } });
    }
  });

  inProcessOnly("delivers the day at midnight as CSV whose totals are the store day's, by password", async () => {
    expect(await configure({ format: "csv", password: sftp.account.password })).toMatchObject({
      format: "csv",
      auth_method: "password",
      path: "/",
      port: Number(new URL(sftp.base_url).port),
    });
    await platform.jobs!.trigger("accounting-export");
    const csv = received("csv").trimEnd().split("\r\n");
    const header = csv[0]!.split(",");
    const rows = csv.slice(1).map((line) => Object.fromEntries(line.split(",").map((v, i) => [header[i], v])));
    const totals = rows.find((row) => row.record_type === "totals")!;
    const transactions = rows.filter((row) => row.record_type === "transaction");
    const dayTotals = await storeDay();
    expect(totals).toMatchObject({
      export_type: "daily_settlement",
      date: day,
      merchant_id: String(store.merchant_id),
      store_id: String(store.id),
      gross_revenue: String(dayTotals.gross_amount),
      net_revenue: String(dayTotals.net_amount),
      tax_collected: String(244 + 244 - 62),
    });
    expect(dayTotals).toMatchObject({ gross_amount: 2684 * 2, net_amount: 2684 * 2 - 684, refund_count: 1 });
    expect(transactions).toHaveLength(dayTotals.payment_count + dayTotals.refund_count);
    expect(transactions.map((row) => Number(row.amount)).sort()).toEqual([-sold.refund, ...sold.payments].sort());
    for (const row of transactions) {
      expect(new Date(row.timestamp!).toISOString()).toBe(row.timestamp);
      expect(row).toMatchObject({ payment_method: "CASH", receipt_number: expect.stringMatching(/^R\d{8}-\d{4}$/) });
    }
    expect(transactions.find((row) => row.kind === "refund")).toMatchObject({ amount: "-684", tax_amount: "-62" });
    expect(arrivals("csv")).toBe(1);
    expect(await delivery()).toMatchObject({ file_name: fileName("csv"), status: "delivered", attempts: 1 });
    // The job again (a second worker, a restart): the day is delivered already.
    await platform.jobs!.trigger("accounting-export");
    expect(arrivals("csv")).toBe(1);
  });

  inProcessOnly("sends the day again as JSON by key, and as XML, with the same totals", async () => {
    expect(await configure({ format: "json", private_key: sftp.client_private_key })).toMatchObject({
      auth_method: "private_key",
    });
    expect(await resend()).toMatchObject({ file_name: fileName("json"), status: "delivered", attempts: 1 });
    const json = JSON.parse(received("json"));
    const dayTotals = await storeDay();
    expect(json).toMatchObject({
      export_type: "daily_settlement",
      date: day,
      merchant_id: store.merchant_id,
      store_id: store.id,
      totals: { gross_revenue: dayTotals.gross_amount, tax_collected: 426, net_revenue: dayTotals.net_amount },
    });
    expect(json.transactions).toHaveLength(3);
    expect(Object.keys(json.transactions[0]).sort()).toEqual(
      ["amount", "kind", "payment_method", "receipt_number", "tax_amount", "timestamp", "transaction_id"].sort(),
    );

    await configure({ format: "xml", password: sftp.account.password });
    expect(await resend()).toMatchObject({ file_name: fileName("xml"), status: "delivered" });
    const xml = received("xml");
    const element = (name: string) => xml.match(new RegExp(`<${name}>([^<]*)</${name}>`))?.[1];
    expect(element("date")).toBe(day);
    expect(element("gross_revenue")).toBe(String(dayTotals.gross_amount));
    expect(element("net_revenue")).toBe(String(dayTotals.net_amount));
    expect(element("tax_collected")).toBe("426");
    expect(xml.match(/<transaction>/g)).toHaveLength(3);
  });

  inProcessOnly("pins the server's host key, given or trusted on first use, and sends nothing to another", async () => {
    const shown = sshFingerprint(sftp.host_key);
    const other = sshFingerprint(newSshKeyPair().private);
    expect(
      await configure({ format: "json", password: sftp.account.password, host_key_fingerprint: other }),
    ).toMatchObject({ host_key_fingerprint: other, host_key_learned_at: null });
    const before = arrivals("json");
    expect(await resend()).toMatchObject({
      status: "pending",
      attempts: 1,
      last_error: `the SFTP server's host key did not match: the settings pin ${other}, the server showed ${shown}; nothing was sent`,
    });
    expect(arrivals("json")).toBe(before);

    // Set again without one: the key the server shows next is trusted and kept.
    expect(await configure({ format: "json", password: sftp.account.password })).toMatchObject({
      host_key_fingerprint: null,
    });
    expect(await resend()).toMatchObject({ status: "delivered", attempts: 1 });
    expect(arrivals("json")).toBe(before + 1);
    const settings = await call("GET", exportPath(), await admin());
    expect(settings.body).toMatchObject({ host_key_fingerprint: shown, host_key_learned_at: expect.any(String) });

    expect(
      await configure({ format: "json", password: sftp.account.password, host_key_fingerprint: shown }),
    ).toMatchObject({ host_key_fingerprint: shown, host_key_learned_at: null });
    expect(await resend()).toMatchObject({ status: "delivered" });
  });

  inProcessOnly("is refused twice, delivered at the third attempt 30 minutes apart, and arrives once", async () => {
    await configure({ format: "json", password: sftp.account.password });
    const before = arrivals("json");
    embeddedSftpControl(platform.dataDir).refuseNextUploads(2);
    expect(await resend()).toMatchObject({
      status: "pending",
      attempts: 1,
      last_error: expect.stringMatching(/refused/),
    });
    // Not due yet: the retry pass leaves it.
    await platform.jobs!.trigger("accounting-export-retries");
    expect(await delivery()).toMatchObject({ status: "pending", attempts: 1 });
    await thirtyMinutesLater();
    expect(await delivery()).toMatchObject({ status: "pending", attempts: 2 });
    await thirtyMinutesLater();
    expect(await delivery()).toMatchObject({ status: "delivered", attempts: 3 });
    expect(arrivals("json")).toBe(before + 1);
    await thirtyMinutesLater();
    expect(arrivals("json")).toBe(before + 1);
  });

  inProcessOnly("fails after five attempts with a wrong key: an alert, the metric and an audit record", async () => {
    const wrongKey = newSshKeyPair().private;
    await configure({ format: "csv", private_key: wrongKey });
    const failedCount = async () => {
      const text = await (await fetch(`${platform.adminUrl}/metrics`)).text();
      const line = text
        .split("\n")
        .find((l) => l.startsWith('pgw_accounting_export_delivery_total{format="csv",status="failed"}'));
      return line ? Number(line.split(" ").pop()) : 0;
    };
    const failedBefore = await failedCount();
    expect(await resend()).toMatchObject({ status: "pending", attempts: 1 });
    for (const attempts of [2, 3, 4]) {
      await thirtyMinutesLater();
      expect(await delivery()).toMatchObject({ status: "pending", attempts });
    }
    const logged = await loggedDuring(thirtyMinutesLater);
    expect(logged).toContain('"alert":"accounting_export_failed"');
    const failed = await delivery();
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 5,
      last_error: expect.stringMatching(/authentication/i),
    });
    expect(await failedCount()).toBe(failedBefore + 1);
    await thirtyMinutesLater();
    expect(await delivery()).toMatchObject({ status: "failed", attempts: 5 });
    const trail = async () =>
      (await call("GET", `/api/v1/audit-logs?target=${failed.id}`, await admin())).body as Record<string, any>[];
    await expect.poll(async () => (await trail()).map((record) => record.event)).toEqual(["accounting_export.failed"]);
    expect((await trail())[0]).toMatchObject({ success: false, metadata: { attempts: 5, file_name: fileName("csv") } });
  });

  inProcessOnly("the operator's command sends the day again while the platform is stopped", async () => {
    await configure({ format: "json", password: sftp.account.password });
    const before = arrivals("json");
    await platform.stop();
    const command = (...args: string[]) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", "apps/platform/src/accounting-export.ts", ...args], {
        env: {
          ...process.env,
          DATA_DIR: platform.dataDir,
          ...(platform.config.databaseUrls.pos ? { DATABASE_URL_POS: platform.config.databaseUrls.pos } : {}),
        },
      }).then(
        ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
    expect(await command("resend", "--store", String(store.id))).toMatchObject({ code: 2, stderr: /usage/ });
    // The command starts the sandbox server itself on embedded storage only; on PostgreSQL it is the operator's to run.
    const server = platform.config.databaseUrls.pos
      ? await startEmbeddedSftp({ dataDir: platform.dataDir, host: "127.0.0.1" })
      : undefined;
    try {
      expect(await command("resend", "--store", String(store.id), "--date", day)).toMatchObject({
        code: 0,
        stdout: `${fileName("json")}  delivered  attempts 1\n`,
      });
    } finally {
      await server?.close();
    }
    expect(arrivals("json")).toBe(before + 1);
  });
});
