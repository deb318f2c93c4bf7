import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type MerchantAccount, signedHeaders } from "@pos-cloud/sandbox-provider";

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
