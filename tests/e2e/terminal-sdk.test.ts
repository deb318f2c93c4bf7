import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { repositoryRoot } from "@pos-cloud/common";
import {
  activate,
  activateByCode,
  ChecksumMismatchError,
  createTerminalClient,
  generateDeviceKeyPair,
  TerminalApiError,
} from "@pos-cloud/terminal-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { humanToken } from "../support/device";
import { uniqueCode } from "../support/environment";
import { call } from "../support/gateway";
import { startTestPlatform, type TestPlatform } from "../support/platform";
import { type SeededStore, seed } from "../support/seed";

// Issue 34: the terminal SDK against a running platform, from a new terminal's activation to its app updates, and
// the README's quickstart run as written.

let platform: TestPlatform;
let home: SeededStore;
let operator: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  home = await seed(platform).store({ sells: true });
  operator = await humanToken(platform.portal, { role: "SYSTEM_OP" });
});
afterAll(() => platform?.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An activation code the operator issued for `home`. */
async function issuedCode() {
  const issued = await call(
    platform.baseUrl,
    "POST",
    "/api/v1/device/provision/issueActivationCode",
    { store_id: home.id },
    bearer(operator),
  );
  expect(issued.status).toBe(201);
  return issued.body.activation_code as string;
}

/** A terminal activated through the SDK with a code issued for `home`. */
async function activated() {
  const keyPair = await generateDeviceKeyPair();
  const device = await activate({
    baseUrl: platform.baseUrl,
    activationCode: await issuedCode(),
    serialNumber: uniqueCode("SN"),
    model: "A920",
    manufacturer: "PAX",
    keyPair,
  });
  return { device, keyPair };
}

describe("the terminal SDK", () => {
  it("runs the README's quickstart as written against the demo tenant", async () => {
    const readme = readFileSync(join(repositoryRoot, "sdks", "terminal", "README.md"), "utf8");
    const quickstart = /## Quickstart[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(quickstart).toBeDefined();
    // Beside the repository's packages, so that `@pos-cloud/terminal-sdk` resolves as it does for a reader.
    const file = join(repositoryRoot, `quickstart-${process.pid}.ts`);
    writeFileSync(file, quickstart ?? "");
    try {
      const { stdout } = await promisify(execFile)(join(repositoryRoot, "node_modules", ".bin", "tsx"), [file], {
        cwd: repositoryRoot,
        env: { ...process.env, DEMO_JSON: join(platform.dataDir, "demo.json") },
      });
      expect(stdout).toMatch(/^QR to show: http/m);
      expect(stdout).toMatch(/^payment succeeded$/m);
      expect(stdout.trim().split("\n").at(-1)).toBe("bill paid");
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("activates a terminal with a key that never leaves WebCrypto, and signs its calls with it", async () => {
    const { device, keyPair } = await activated();
    expect(device).toMatchObject({ merchantId: home.merchant_id, storeId: home.id });
    expect(keyPair.privateKey.extractable).toBe(false);
    const terminal = createTerminalClient({
      baseUrl: platform.baseUrl,
      clientId: device.clientId,
      privateKey: device.privateKey,
      WebSocket,
    });
    const order = await terminal.orders.create({
      order_type: "takeaway",
      items: [{ sequence: 1, item_name: "Onigiri", quantity: 2, unit_price: 180 }],
    });
    expect(order).toMatchObject({ store_id: home.id, device_id: device.deviceId, total_amount: 360 });
  });

  it("activates a terminal by a code it shows, once staff approve it for their store", async () => {
    const shown: string[] = [];
    const activating = activateByCode({
      baseUrl: platform.baseUrl,
      serialNumber: uniqueCode("SN"),
      model: "A920",
      manufacturer: "PAX",
      pollIntervalMs: 50,
      onCode: ({ activationCode }) => shown.push(activationCode),
    });
    await expect.poll(() => shown.length).toBe(1);
    const pending = await call(
      platform.baseUrl,
      "GET",
      `/api/v1/device/provision/activationStatus?activation_code=${shown[0]}`,
    );
    expect(pending.body).toMatchObject({ status: "pending", client_id: null });
    const approved = await call(
      platform.baseUrl,
      "POST",
      "/api/v1/device/provision/activate",
      { activation_code: shown[0], store_id: home.id },
      bearer(operator),
    );
    expect(approved.status).toBe(200);
    const device = await activating;
    expect(device).toMatchObject({ merchantId: home.merchant_id, storeId: home.id });
    const terminal = createTerminalClient({ baseUrl: platform.baseUrl, ...device });
    expect(await terminal.tokens.identity()).toEqual({ deviceId: device.deviceId, storeId: home.id });
  });

  it("refuses a used activation code with the platform's error, and an unknown order as a typed error", async () => {
    const activationCode = await issuedCode();
    const register = () =>
      activate({
        baseUrl: platform.baseUrl,
        activationCode,
        serialNumber: uniqueCode("SN"),
        model: "A920",
        manufacturer: "PAX",
      });
    const device = await register();
    const refused = await register().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TerminalApiError);
    expect(refused).toMatchObject({ status: 404, code: "not_found" });

    const terminal = createTerminalClient({ baseUrl: platform.baseUrl, ...device });
    const missing = await terminal.orders.get("00000000-0000-0000-0000-000000000000").catch((error: unknown) => error);
    expect(missing).toMatchObject({ name: "TerminalApiError", status: 404, code: "not_found" });
  });

  it("refunds once when the terminal sends the same refund again with its Idempotency-Key", async () => {
    const { device } = await activated();
    const terminal = createTerminalClient({ baseUrl: platform.baseUrl, ...device });
    const staff = await seed(platform).user("STAFF", home);
    const leader = await seed(platform).user("STAFF_LEADER", home);
    const order = await terminal.orders.create({
      order_type: "takeaway",
      items: [{ sequence: 1, item_name: "Ramen", quantity: 1, unit_price: 1000 }],
    });
    const bill = await terminal.bills.create({ order_id: order.id, staff_code: staff.login_id, tax_percentage: 10 });
    const payment = await terminal.payments.create({
      bill_id: bill.id,
      amount: bill.total_amount,
      payment_method: { type: "CASH" },
      cash_received: bill.total_amount,
    });
    expect(payment.status).toBe("completed");
    const body = { refund_amount: 300, reason: "cold soup", staff_code: leader.login_id, staff_pin: leader.pin };
    const key = crypto.randomUUID();
    const first = await terminal.refunds.create(payment.id, body, key);
    const again = await terminal.refunds.create(payment.id, body, key);
    expect(again).toEqual(first);
    expect(await terminal.payments.get(payment.id)).toMatchObject({ refund_amount: 300 });
    const other = await terminal.refunds.create(payment.id, { ...body, reason: "other" }, key).catch((error) => error);
    expect(other).toMatchObject({ name: "TerminalApiError", status: 409, code: "idempotency_conflict" });
    expect(await terminal.payments.get(payment.id)).toMatchObject({ refund_amount: 300 });
  });

  it("downloads an offered update and hands it over only when its checksum is the published one", async () => {
    const { device } = await activated();
    const apk = new TextEncoder().encode(`an APK ${uniqueCode("V")}`);
    const publish = async (version_code: number, bytes: Uint8Array, apk_url: string) => {
      const version = await call(
        platform.baseUrl,
        "POST",
        "/api/v1/app-updates",
        {
          app_name: "qr-app",
          version_code,
          version_name: `${version_code}.0.0`,
          apk_url,
          apk_size: bytes.byteLength,
          apk_checksum: `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
          min_os_version: "11",
        },
        bearer(operator),
      );
      expect(version.status).toBe(201);
      const path = `/api/v1/app-updates/${version.body.id}`;
      await call(
        platform.baseUrl,
        "PATCH",
        path,
        { release_status: "stable", rollout_percentage: 100 },
        bearer(operator),
      );
      expect((await call(platform.baseUrl, "POST", `${path}/publish`, undefined, bearer(operator))).status).toBe(200);
    };
    // The CDN is this test: the good APK at one address, other bytes at the other.
    const cdn: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url === "https://cdn.example.com/good.apk") return new Response(apk);
      if (url === "https://cdn.example.com/tampered.apk") return new Response(new TextEncoder().encode("tampered"));
      return fetch(input, init);
    };
    const terminal = createTerminalClient({ baseUrl: platform.baseUrl, ...device, fetch: cdn });
    await publish(7001, apk, "https://cdn.example.com/good.apk");
    const update = await terminal.checkAppUpdate("qr-app", 7000);
    expect(update).toMatchObject({ versionCode: 7001, isMandatory: false });
    expect(update?.apk).toEqual(apk);
    await terminal.confirmInstall(7001, "installed");

    await publish(7002, apk, "https://cdn.example.com/tampered.apk");
    await expect(terminal.checkAppUpdate("qr-app", 7001)).rejects.toBeInstanceOf(ChecksumMismatchError);
    expect(await terminal.checkAppUpdate("qr-app", 7002)).toBeNull();
  });
});
