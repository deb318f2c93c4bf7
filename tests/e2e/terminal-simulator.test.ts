import { spawn } from "node:child_process";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";
import { createTerminalClient } from "@pos-cloud/terminal-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDemo, startTestPlatform, type TestPlatform } from "../support/platform";

// Issue 34: `npm run terminal -- simulate` against a started platform: its terminals sell by every method, and the
// store's day it reads at the end agrees with what they sold, or the command says it does not and exits 1.

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform?.close());

/**
 * The simulator as a person runs it, against the test platform and its demo.json: `started` once it prints that its
 * terminals sell, `ended` with its output and exit code.
 */
function simulate(duration: string, terminals: number, stores = 1) {
  const args = [
    join(repositoryRoot, "sdks", "terminal", "simulator", "cli.ts"),
    "simulate",
    ...["--stores", String(stores), "--terminals", String(terminals), "--rate", "2"],
    ...["--mix", "cash:50,qr:30,card:20", "--duration", duration],
    ...["--base-url", platform.baseUrl, "--demo", join(platform.dataDir, "demo.json")],
  ];
  const child = spawn(join(repositoryRoot, "node_modules", ".bin", "tsx"), args, { cwd: repositoryRoot });
  let stdout = "";
  let stderr = "";
  let hasStarted = () => {};
  const started = new Promise<void>((resolve) => {
    hasStarted = resolve;
  });
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    if (/^selling: /m.test(stdout)) hasStarted();
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  // A simulator that ends before it sells ends the wait too: its output then says why.
  const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => {
      hasStarted();
      resolve({ code, stdout, stderr });
    }),
  );
  return { started, ended };
}

const soldLine = (stdout: string, method: string) =>
  new RegExp(`^${method}\\s+sold (\\d+) for (\\d+); the store's day counted (\\d+) for (\\d+)$`, "m").exec(stdout);

describe("the terminal simulator", () => {
  it("sells by cash, QR and card, and finds the store's day equal to what its terminals sold", async () => {
    const { code, stdout, stderr } = await simulate("3s", 2).ended;
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^\d+ sales in [\d.]+ s: [\d.]+ sales\/s$/m);
    expect(stdout).toMatch(/^latency of a whole sale: p50 \d+ ms, p95 \d+ ms, p99 \d+ ms$/m);
    expect(stdout).toMatch(/^errors: none$/m);
    for (const method of ["cash", "qr", "card"]) {
      const [, sold, amount, counted, countedAmount] = soldLine(stdout, method) ?? [];
      expect(Number(sold)).toBeGreaterThan(0);
      expect([counted, countedAmount]).toEqual([sold, amount]);
    }
    expect(stdout).toMatch(/^totals: equal$/m);
    expect(code).toBe(0);
  });

  it("reports a difference and exits 1 when a sale it did not make lands in the store's day during its run", async () => {
    const demo = readDemo(platform.dataDir);
    // Another terminal of the store (demo.json's own) sells cash once the simulator has read the store's day.
    const other = createTerminalClient({
      baseUrl: platform.baseUrl,
      clientId: demo.device.client_id,
      privateKey: demo.device.private_jwk,
    });
    // One terminal, demo.json's: a new one needs the manager's TOTP code, and the first test used this step's.
    const running = simulate("6s", 1);
    await running.started;
    const order = await other.orders.create({
      order_type: "takeaway",
      items: [{ sequence: 1, item_name: "Behind its back", quantity: 1, unit_price: 777 }],
    });
    const staff = demo.users.find((user) => user.role === "STAFF")!;
    const bill = await other.bills.create({ order_id: order.id, staff_code: staff.login_id, tax_percentage: 10 });
    await other.payments.create({
      bill_id: bill.id,
      amount: bill.total_amount,
      payment_method: { type: "CASH" },
      cash_received: bill.total_amount,
    });
    const { code, stdout } = await running.ended;
    const [, sold, amount, counted, countedAmount] = soldLine(stdout, "cash") ?? [];
    expect(Number(sold)).toBeGreaterThan(0);
    expect(Number(counted)).toBe(Number(sold) + 1);
    expect(Number(countedAmount)).toBe(Number(amount) + bill.total_amount);
    expect(stdout).toMatch(/^totals: DIFFERENT$/m);
    expect(code).toBe(1);
  });

  it("provisions a second store as an operator would and checks each store's day against its own terminals", async () => {
    // One terminal each: demo.json's in the demo store; the new store's is activated by the merchant admin.
    const { code, stdout, stderr } = await simulate("3s", 1, 2).ended;
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^errors: none$/m);
    const stores = [...stdout.matchAll(/^store (\d+): sold (\d+), its day counted (\d+): (\w+)$/gm)];
    expect(stores.map(([, id]) => Number(id))).toEqual([readDemo(platform.dataDir).store.id, expect.any(Number)]);
    expect(new Set(stores.map(([, id]) => id)).size).toBe(2);
    for (const [, , sold, counted, verdict] of stores) {
      expect(Number(sold)).toBeGreaterThan(0);
      expect([counted, verdict]).toEqual([sold, "equal"]);
    }
    expect(stdout).toMatch(/^totals: equal$/m);
    expect(code).toBe(0);
  });
});
