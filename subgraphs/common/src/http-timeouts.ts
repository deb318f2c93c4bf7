import type { ServerOptions } from "node:http";

/** How long a client may take to send its request line and headers, its whole request, and between requests. */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

export const defaultHttpTimeouts: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

/**
 * `createServer` options that close a connection whose client sends its headers or request too slowly (a
 * slow-header client otherwise holds a socket for as long as it likes), for every node:http server the platform
 * listens with.
 */
export function httpServerOptions(timeouts: Partial<HttpTimeouts> = {}): ServerOptions {
  const { headersMs, requestMs, keepAliveMs } = { ...defaultHttpTimeouts, ...timeouts };
  return {
    headersTimeout: Math.min(headersMs, requestMs),
    requestTimeout: requestMs,
    keepAliveTimeout: keepAliveMs,
    // Node checks both timeouts only this often (every 30 s by default), which would let a socket outlive them.
    connectionsCheckingInterval: Math.min(1000, headersMs),
  };
}
