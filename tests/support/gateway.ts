import { signatureV1, signatureV2 } from "../../rest-compat/src/hmac";
import { specRateLimits } from "../../rest-compat/src/rate-limit";

export { readDemo } from "./platform";

export interface Credentials {
  client_id: string;
  secret: string;
}

export type { DemoFile as Demo } from "../../apps/platform/src/demo";

export interface SignOptions {
  scheme?: 1 | 2;
  /** Unix seconds; now when absent. */
  timestamp?: number;
  headers?: Record<string, string>;
  /** Sign these instead of what is sent, to tamper with a request after signing. */
  signedTarget?: string;
  signedBody?: string;
  signal?: AbortSignal;
}

export function authorization(
  credentials: Credentials,
  method: string,
  target: string,
  body: string,
  options: SignOptions = {},
): string {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const sign = options.scheme === 2 ? signatureV2 : signatureV1;
  const signature = sign(
    credentials.secret,
    method,
    options.signedTarget ?? target,
    timestamp,
    Buffer.from(options.signedBody ?? body),
  );
  return `HMAC-SHA256 ${credentials.client_id}:${timestamp}:${signature}`;
}

export interface GatewayResponse {
  status: number;
  headers: Headers;
  body: any;
}

const parse = async (response: Response): Promise<GatewayResponse> => {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
};

/** A partner's HMAC-signed call to the gateway API. */
export async function signed(
  baseUrl: string,
  credentials: Credentials,
  method: string,
  target: string,
  body?: unknown,
  options: SignOptions = {},
): Promise<GatewayResponse> {
  const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
  const response = await fetch(`${baseUrl}${target}`, {
    method,
    headers: {
      ...(text ? { "content-type": "application/json" } : {}),
      authorization: authorization(credentials, method, target, text, options),
      ...options.headers,
    },
    body: text || undefined,
    signal: options.signal,
  });
  return parse(response);
}

/** An unsigned call (web view with a payment token, or an attacker). */
export async function call(
  baseUrl: string,
  method: string,
  target: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<GatewayResponse> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(`${baseUrl}${target}`, {
    method,
    headers: { ...(text ? { "content-type": "application/json" } : {}), ...headers },
    body: text,
  });
  return parse(response);
}

/**
 * Moves a platform's clock to the start of its next rate-limit window. The limits count in fixed windows of the
 * platform's clock, so the few requests a test sends next all meet one window's count, wherever in a window the test
 * began. One move is at most a window (60 s), well inside a signature's 5 minutes.
 */
export function startRateWindow(clock: { (): Date; advance(ms: number): void }) {
  const windowMs = specRateLimits.windowSeconds * 1000;
  clock.advance(windowMs - (clock().getTime() % windowMs));
}
