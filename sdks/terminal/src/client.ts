import createClient from "openapi-fetch";
import { type DeviceKey, signingKey } from "./assertion";
import { unwrap } from "./errors";
import type { paths } from "./openapi.generated";
import { type TokenSource, tokenSource } from "./tokens";

export interface TerminalClientOptions {
  /** The platform's address, as demo.json's `base_url`. */
  baseUrl: string;
  /** The device's OAuth 2.0 client id (activationStatus' `client_id`). */
  clientId: string;
  /** The device's P-256 private key: a WebCrypto key or a private JWK. */
  privateKey: DeviceKey;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; defaults to Date.now. Tests move it. */
  now?: () => number;
  /**
   * The audience of the device's client assertions, where the terminal reaches the platform by another address than
   * its public one (a proxy): the platform's token endpoint URL. By default the token endpoint at `baseUrl`.
   */
  tokenAudience?: string;
}

const mutating = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Sends with the device token; a 401 drops the token, a new assertion gets another, and the request goes once more. */
function authorizedFetch(tokens: TokenSource, send: typeof fetch) {
  const attempt = async (request: Request) => {
    const token = await tokens.token();
    const headers = new Headers(request.headers);
    headers.set("authorization", `Bearer ${token}`);
    return { token, response: await send(new Request(request, { headers })) };
  };
  return async (request: Request): Promise<Response> => {
    // The same key on the retry: the platform answers a request it already did with its first response.
    if (mutating.has(request.method) && !request.headers.has("idempotency-key")) {
      request.headers.set("idempotency-key", crypto.randomUUID());
    }
    const retry = request.clone();
    const first = await attempt(request);
    if (first.response.status !== 401) return first.response;
    tokens.refused(first.token);
    return (await attempt(retry)).response;
  };
}

/** The typed REST client of one device: every path of the platform's /openapi.json, signed with its token. */
export function deviceApi(options: TerminalClientOptions) {
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);
  const tokens = tokenSource({
    baseUrl: options.baseUrl,
    clientId: options.clientId,
    key: signingKey(options.privateKey),
    fetch: send,
    now: options.now ?? Date.now,
    audience: options.tokenAudience,
  });
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: authorizedFetch(tokens, send) });
  return { api, tokens, send };
}

/** An Idempotency-Key the caller keeps to retry a mutation itself (after a timeout, say) without doing it twice. */
export const idempotent = (key: string | undefined) => (key ? { "idempotency-key": key } : undefined);

type Body<P extends keyof paths, M extends "post" | "patch"> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;

/** Orders, bills, POS payments, their refunds and settlements, typed from the platform's OpenAPI. */
export function posCalls(api: ReturnType<typeof deviceApi>["api"]) {
  return {
    orders: {
      create: async (body: Body<"/api/v1/orders", "post">, key?: string) =>
        unwrap(await api.POST("/api/v1/orders", { body, headers: idempotent(key) })),
      get: async (id: string) => unwrap(await api.GET("/api/v1/orders/{id}", { params: { path: { id } } })),
      list: async (query: NonNullable<paths["/api/v1/orders"]["get"]["parameters"]["query"]> = {}) =>
        unwrap(await api.GET("/api/v1/orders", { params: { query } })),
      update: async (id: string, body: Body<"/api/v1/orders/{id}", "patch">) =>
        unwrap(await api.PATCH("/api/v1/orders/{id}", { params: { path: { id } }, body })),
      cancel: async (id: string) => unwrap(await api.POST("/api/v1/orders/{id}/cancel", { params: { path: { id } } })),
    },
    bills: {
      create: async (body: Body<"/api/v1/bills", "post">, key?: string) =>
        unwrap(await api.POST("/api/v1/bills", { body, headers: idempotent(key) })),
      get: async (id: string) => unwrap(await api.GET("/api/v1/bills/{id}", { params: { path: { id } } })),
      list: async (query: NonNullable<paths["/api/v1/bills"]["get"]["parameters"]["query"]> = {}) =>
        unwrap(await api.GET("/api/v1/bills", { params: { query } })),
    },
    payments: {
      create: async (body: Body<"/api/v1/payments", "post">, key?: string) =>
        unwrap(await api.POST("/api/v1/payments", { body, headers: idempotent(key) })),
      get: async (id: string) => unwrap(await api.GET("/api/v1/payments/{id}", { params: { path: { id } } })),
      list: async (query: NonNullable<paths["/api/v1/payments"]["get"]["parameters"]["query"]> = {}) =>
        unwrap(await api.GET("/api/v1/payments", { params: { query } })),
    },
    refunds: {
      create: async (paymentId: string, body: Body<"/api/v1/payments/{id}/refund", "post">, key?: string) =>
        unwrap(
          await api.POST("/api/v1/payments/{id}/refund", {
            params: { path: { id: paymentId } },
            body,
            headers: idempotent(key),
          }),
        ),
      status: async (paymentId: string) =>
        unwrap(await api.GET("/api/v1/payments/{id}/refund-status", { params: { path: { id: paymentId } } })),
    },
    settlements: {
      create: async (body: Body<"/api/v1/settlements", "post">, key?: string) =>
        unwrap(await api.POST("/api/v1/settlements", { body, headers: idempotent(key) })),
      list: async (query: NonNullable<paths["/api/v1/settlements"]["get"]["parameters"]["query"]> = {}) =>
        unwrap(await api.GET("/api/v1/settlements", { params: { query } })),
      close: async (id: string) =>
        unwrap(await api.POST("/api/v1/settlements/{id}/close", { params: { path: { id } } })),
    },
  };
}
