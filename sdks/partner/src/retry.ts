import { authorization, type SignedParts } from "./signing.ts";

export interface RetryOptions {
  /** Attempts after the first; 3 unless given. */
  retries?: number;
  /** The first backoff in milliseconds, doubled each attempt (with full jitter); 200 unless given. */
  backoffMs?: number;
  /** Waits; a test passes its own so nothing really sleeps. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

export interface SigningFetchOptions extends RetryOptions {
  clientId: string;
  secret: string;
  scheme?: 1 | 2;
  fetch?: (request: Request) => Promise<Response>;
}

const MAX_BACKOFF_MS = 10_000;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After as seconds or an HTTP date, in milliseconds from `now`; absent or unreadable: undefined. */
function retryAfterMs(response: Response, now: number): number | undefined {
  const value = response.headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * A fetch that signs every attempt anew (the platform accepts a signature once) and retries what is safe to resend:
 * a 429 after its Retry-After (the request was refused before it changed anything), and a network error or 5xx
 * with exponential backoff and jitter when `resendable` says the request may be sent twice (a read, or a write with
 * an Idempotency-Key its route honours). The same bytes and headers, Idempotency-Key included, go on every attempt.
 */
export function signingFetch(options: SigningFetchOptions, resendable: (request: Request) => boolean) {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? wait;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const retries = options.retries ?? 3;
  const backoff = (attempt: number) =>
    Math.floor(random() * Math.min(MAX_BACKOFF_MS, (options.backoffMs ?? 200) * 2 ** attempt));

  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const body = new Uint8Array(await request.arrayBuffer());
    const parts: SignedParts = { method: request.method, target: `${url.pathname}${url.search}`, body };
    const mayResend = resendable(request);
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(request.headers);
      headers.set("authorization", authorization(options, parts, now()));
      const init = { method: request.method, headers, body: body.length > 0 ? body : undefined };
      const last = attempt >= retries;
      let response: Response;
      try {
        response = await send(new Request(url, { ...init, signal: request.signal }));
      } catch (error) {
        if (last || !mayResend || request.signal.aborted) throw error;
        await sleep(backoff(attempt));
        continue;
      }
      if (last) return response;
      if (response.status === 429) {
        await response.body?.cancel();
        await sleep(retryAfterMs(response, now()) ?? backoff(attempt));
      } else if (response.status >= 500 && mayResend) {
        await response.body?.cancel();
        await sleep(backoff(attempt));
      } else {
        return response;
      }
    }
  };
}
