import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type MerchantAccount, signedHeaders, startSandbox } from "@pos-cloud/sandbox-provider";

/** Fresh credentials for one test's merchant account. */
export function testAccount(delivery: MerchantAccount["delivery"] = "webhook"): MerchantAccount {
  const hex = (n: number) => randomBytes(n).toString("hex");
  return { merchant_id: `m_${hex(4)}`, api_key: `key_${hex(8)}`, api_secret: hex(16), delivery };
}

/** A merchant's signed call to the sandbox API, as the gateway's adapter makes it. */
export async function callSandbox(
  baseUrl: string,
  account: MerchantAccount,
  method: string,
  path: string,
  body?: unknown,
  options: { nowMs?: number; headers?: Record<string, string> } = {},
) {
  const raw = body === undefined ? "" : JSON.stringify(body);
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(raw ? { "content-type": "application/json" } : {}),
      ...signedHeaders(account, method, path, raw, options.nowMs),
      ...options.headers,
    },
    body: raw || undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

export interface ReceivedNotification {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: any;
}

/** A merchant's webhook endpoint: records what arrives and answers with the next scripted status (then 200). */
export async function notificationReceiver(statuses: number[] = []) {
  const received: ReceivedNotification[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(statuses.shift() ?? 200);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/webhooks/sandbox`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A QR intent paid as a customer pays it: the web view confirms it with its payment token at the gateway, then the
 * customer pays the sandbox transaction its QR code names. Answers the confirmation.
 */
export async function confirmAndPayByQr(
  gatewayUrl: string,
  sandboxUrl: string,
  intent: { id: string; payment_token: { token: string } },
) {
  const confirmed = await fetch(`${gatewayUrl}/v1/payment_intents/${intent.id}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      payment_token: intent.payment_token.token,
      payment_method_type: "qr_mpm",
      provider: "sandbox",
    }),
  });
  const body = (await confirmed.json()) as any;
  if (confirmed.status !== 200) throw new Error(`confirm answered ${confirmed.status}: ${JSON.stringify(body)}`);
  const transactionId = new URL(body.qr_content).pathname.split("/").at(-1);
  const paid = await fetch(`${sandboxUrl}/sandbox/transactions/${transactionId}/pay`, { method: "POST" });
  if (paid.status !== 200) throw new Error(`the sandbox's pay answered ${paid.status}`);
  return body;
}

/** A sandbox for one adapter's contract run: its own accounts, a clock the test moves, faults it is told. */
export async function contractSandbox() {
  const account = testAccount("webhook");
  const receiver = await notificationReceiver();
  const webhookSecret = randomBytes(16).toString("hex");
  let offsetMs = 0;
  const sandbox = await startSandbox({
    webhookSecret,
    accounts: [account],
    retryDelaysMs: [],
    now: () => Date.now() + offsetMs,
  });
  const { merchant_id, api_key, api_secret } = account;
  return {
    sandbox,
    receiver,
    webhookSecret,
    credentials: { merchant_id, api_key, api_secret },
    /** The platform's context: notifications go to the receiver, `baseUrl: "sandbox"` is this sandbox. */
    context: { gatewayUrl: new URL(receiver.url).origin, sandbox: { baseUrl: sandbox.baseUrl, webhookSecret } },
    /** The customer pays the sandbox transaction the QR's URL names. */
    async pay(qrContent: string) {
      const transactionId = new URL(qrContent).pathname.split("/").at(-1);
      const paid = await fetch(`${sandbox.baseUrl}/sandbox/transactions/${transactionId}/pay`, { method: "POST" });
      if (paid.status !== 200) throw new Error(`the sandbox's pay answered ${paid.status}`);
    },
    outlive: (seconds: number) => {
      offsetMs += (seconds + 1) * 1000;
    },
    /** The sandbox changes the transaction the QR's URL names, telling nobody (`/sandbox/transactions/{id}/override`). */
    async disagree(qr: { qr_content: string }, change: { status?: "paid"; refund_amount?: number }) {
      const transactionId = new URL(qr.qr_content).pathname.split("/").at(-1);
      const told = await fetch(`${sandbox.baseUrl}/sandbox/transactions/${transactionId}/override`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(change),
      });
      if (told.status !== 200) throw new Error(`the sandbox's override answered ${told.status}`);
    },
    async fail(fault: { status?: number; delay_ms?: number; times?: number }) {
      const told = await fetch(`${sandbox.baseUrl}/sandbox/faults`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(fault),
      });
      if (told.status !== 201) throw new Error(`the sandbox's faults answered ${told.status}`);
    },
    async close() {
      await sandbox.close();
      await receiver.close();
    },
  };
}
