import { type LookupAddress, type LookupOptions, lookup } from "node:dns";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { requireNoTransaction } from "@pos-cloud/common";
import { Webhook } from "standardwebhooks";
import { isPublicAddress, refusedHost } from "./webhook-url.rules";

/** One delivery attempt as it goes out: the same id and body on every attempt, the time of this attempt. */
export interface WebhookMessage {
  id: string;
  body: string;
  timestamp: Date;
}

/** The HMAC key of a `whsec_` secret: its base64 part (either alphabet: keys issued earlier are base64url). */
const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ""), "base64");

/**
 * The Standard Webhooks headers and the spec's `X-Gw-*` headers with the same values: one `v1,<base64>`
 * signature of `{id}.{timestamp}.{body}` per secret, space-separated (two while a secret rotates).
 */
export function signedHeaders(message: WebhookMessage, secrets: string[]): Record<string, string> {
  const signature = secrets
    .map((secret) => new Webhook(keyOf(secret), { format: "raw" }).sign(message.id, message.timestamp, message.body))
    .join(" ");
  const timestamp = String(Math.floor(message.timestamp.getTime() / 1000));
  return {
    "content-type": "application/json",
    "user-agent": "pgw-webhooks/1",
    "webhook-id": message.id,
    "webhook-timestamp": timestamp,
    "webhook-signature": signature,
    "x-gw-event-id": message.id,
    "x-gw-timestamp": timestamp,
    "x-gw-signature": signature,
  };
}

/** What one attempt got: a response status (delivered when 2xx), or the error that prevented one. */
export type AttemptResult = { delivered: boolean; status?: number; error?: string };

/** Why a post was not even tried: the URL's host is, or resolves only to, an address that is not public. */
class RefusedAddressError extends Error {
  constructor(host: string) {
    super(`${host} is not a public address`);
    this.name = "RefusedAddressError";
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the HTTP client that keeps only public addresses of a host, so a name that resolves (or is
 * re-pointed after the URL was accepted) to an internal address is refused at connection time.
 */
export function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((each) => isPublicAddress(each.address));
    const first = allowed[0];
    if (!first) return callback(new RefusedAddressError(hostname), []);
    if (options.all) return callback(null, allowed);
    callback(null, first.address, first.family);
  });
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * Posts one signed message. Delivered means a 2xx response within the timeout; redirects are not followed (a 3xx
 * is a failure), and unless private URLs are allowed only public addresses are connected to.
 */
export function sendWebhook(url: string, headers: Record<string, string>, body: string, options: SendOptions) {
  requireNoTransaction("partner webhook");
  return new Promise<AttemptResult>((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
      // The HTTP client does not resolve an address written in the URL, so `publicLookup` never sees it.
      const refused = options.allowPrivate ? undefined : refusedHost(target.hostname);
      if (refused !== undefined) throw new RefusedAddressError(refused);
    } catch (error) {
      resolve({ delivered: false, error: (error as Error).message });
      return;
    }
    const request = target.protocol === "https:" ? httpsRequest : httpRequest;
    const outgoing = request(target, {
      method: "POST",
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
      signal: AbortSignal.timeout(options.timeoutMs),
      ...(options.allowPrivate ? {} : { lookup: publicLookup }),
    });
    outgoing.on("response", (response) => {
      const status = response.statusCode ?? 0;
      // The body is not read: only the status counts, and an endless body must not hold the attempt.
      response.destroy();
      resolve({
        delivered: status >= 200 && status < 300,
        status,
        ...(status < 300 ? {} : { error: `HTTP ${status}` }),
      });
    });
    outgoing.on("error", (error) => {
      const timedOut = error.name === "AbortError" || error.name === "TimeoutError";
      resolve({ delivered: false, error: timedOut ? `no response within ${options.timeoutMs} ms` : error.message });
    });
    outgoing.end(body);
  });
}
