import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { smsSignature } from "@pos-cloud/common/messages";
import { sameSecret } from "./mail-server";
import type { Mailbox } from "./mailbox";

/** A signed request older or newer than this is refused, as the gateway refuses HMAC timestamps. */
const TIMESTAMP_WINDOW_S = 300;
const MAX_BODY_BYTES = 16 * 1024;

export interface SmsRelayControl {
  /** The next n messages are refused with 503, as a relay in trouble answers. */
  fail_next: number;
  /** How long the relay takes to answer each message. */
  delay_ms: number;
}

/**
 * How to make the relay misbehave, for retry tests and rehearsals, kept in `control.json` beside its messages so that
 * another process (a test, an operator) can set it.
 */
export function smsRelayControl(stateDir: string) {
  const path = join(stateDir, "control.json");
  const read = (): SmsRelayControl => ({
    fail_next: 0,
    delay_ms: 0,
    ...(existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Partial<SmsRelayControl>) : {}),
  });
  const write = (control: SmsRelayControl) => {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(path, `${JSON.stringify(control)}\n`);
  };
  return {
    read,
    failNext: (count: number) => write({ ...read(), fail_next: Math.max(0, Math.floor(count)) }),
    delay: (ms: number) => write({ ...read(), delay_ms: Math.max(0, Math.floor(ms)) }),
    /** Takes one refusal if any is left. */
    takeFailure() {
      const control = read();
      if (control.fail_next <= 0) return false;
      write({ ...control, fail_next: control.fail_next - 1 });
      return true;
    },
  };
}

const answer = (status: number, body: unknown) => ({ status, body });

/**
 * An SMS provider's HTTP API in miniature: `POST /messages {to, text}` signed with the shared secret
 * (`X-Relay-Timestamp`, `X-Relay-Signature`: hex HMAC-SHA256 of `<timestamp>.<body>`), answered 202 `{id, status:
 * "queued"}`; the message is kept in the mailbox instead of reaching a phone. Numbers ending in 13 are refused
 * (502, the carrier did not take it), as the QR sandbox declines amounts ending in 13; `control.json` makes the next
 * messages fail (503) or slow.
 */
export async function startSmsRelay(options: {
  host: string;
  port: number;
  secret: string;
  stateDir: string;
  mailbox: Mailbox;
}): Promise<{ port: number; close(): Promise<void> }> {
  const control = smsRelayControl(options.stateDir);
  async function handle(method: string, path: string, headers: Record<string, unknown>, body: string) {
    if (method !== "POST" || path !== "/messages") return answer(404, { error: "POST /messages" });
    const timestamp = String(headers["x-relay-timestamp"] ?? "");
    const signature = String(headers["x-relay-signature"] ?? "");
    const age = Math.abs(Date.now() / 1000 - Number(timestamp));
    if (!/^\d+$/.test(timestamp) || !(age <= TIMESTAMP_WINDOW_S))
      return answer(401, { error: "X-Relay-Timestamp missing or more than 5 minutes off" });
    if (!sameSecret(signature, smsSignature(options.secret, timestamp, body)))
      return answer(401, { error: "X-Relay-Signature does not match" });
    let message: { to?: unknown; text?: unknown };
    try {
      message = JSON.parse(body);
    } catch {
      return answer(400, { error: "the body must be JSON {to, text}" });
    }
    if (typeof message.to !== "string" || !/^\+[1-9]\d{6,14}$/.test(message.to))
      return answer(400, { error: "to must be an E.164 number" });
    if (typeof message.text !== "string" || message.text.length === 0 || message.text.length > 1600)
      return answer(400, { error: "text must be 1 to 1600 characters" });
    const { delay_ms } = control.read();
    if (delay_ms > 0) await sleep(delay_ms);
    if (control.takeFailure()) return answer(503, { error: "the relay is not taking messages now" });
    if (message.to.endsWith("13")) return answer(502, { error: "the carrier did not take the message" });
    const kept = options.mailbox.keep({
      channel: "sms",
      from: "POS Cloud",
      to: [message.to],
      subject: "",
      text: message.text,
    });
    return answer(202, { id: kept.id, status: "queued" });
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on("end", async () => {
      const { status, body } =
        size > MAX_BODY_BYTES
          ? answer(413, { error: "the body is too large" })
          : await handle(
              request.method ?? "",
              request.url ?? "",
              request.headers,
              Buffer.concat(chunks).toString("utf8"),
            );
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
