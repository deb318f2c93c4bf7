import { timingSafeEqual } from "node:crypto";
import { AppError } from "./errors";
import { REQUEST_ID_HEADER } from "./logger";

/**
 * Who is calling, as the gateway established it. Subgraphs receive it as headers and trust them only when the
 * internal credential on the same hop is right, so a client that reaches a subgraph directly cannot forge them.
 */
export interface Caller {
  /**
   * `user` and `device` come from bearer JWTs, `partner` from an HMAC-signed server-to-server request (id is the
   * client partner), `service` is the edge itself asking a subgraph for what only the edge may see.
   */
  type: "anonymous" | "user" | "device" | "partner" | "service";
  id?: string;
  role?: string;
  pspId?: number;
  merchantId?: number;
  storeId?: number;
  areaId?: string;
  scopes: string[];
  impersonatedBy?: string;
  /** A person's session (the token's `sid`): what a logout of an impersonation or a refresh token's reuse ends. */
  sessionId?: string;
  /**
   * For a partner, the API key whose secret signed the request: a key rotated out may do less than its successor
   * (docs/decisions/gateway.md, "What a rotated-out key may still do").
   */
  apiKeyId?: string;
  /** For a partner whose key is restricted to some stores, their ids (the permissions it is restricted to are `scopes`). */
  storeIds?: number[];
  /** The client's address and user agent as the edge saw them, for the audit log. */
  ip?: string;
  userAgent?: string;
  /** The request this call is part of, as the edge named it: on every hop and every log line about the request. */
  requestId?: string;
}

export const anonymous: Caller = { type: "anonymous", scopes: [] };

export const INTERNAL_TOKEN_HEADER = "x-internal-token";

const headerNames = {
  type: "x-caller-type",
  id: "x-caller-id",
  role: "x-role",
  pspId: "x-psp-id",
  merchantId: "x-merchant-id",
  storeId: "x-store-id",
  areaId: "x-area-id",
  scopes: "x-scopes",
  impersonatedBy: "x-impersonated-by",
  sessionId: "x-session-id",
  apiKeyId: "x-api-key-id",
  storeIds: "x-api-key-store-ids",
  ip: "x-client-ip",
  userAgent: "x-client-user-agent",
} as const;

const callerTypes = new Set<Caller["type"]>(["anonymous", "user", "device", "partner", "service"]);

export type HeaderBag = Record<string, string | string[] | undefined>;

export function callerHeaders(caller: Caller, internalToken: string): Record<string, string> {
  const headers: Record<string, string> = { [INTERNAL_TOKEN_HEADER]: internalToken, [headerNames.type]: caller.type };
  if (caller.id) headers[headerNames.id] = caller.id;
  if (caller.role) headers[headerNames.role] = caller.role;
  if (caller.pspId !== undefined) headers[headerNames.pspId] = String(caller.pspId);
  if (caller.merchantId !== undefined) headers[headerNames.merchantId] = String(caller.merchantId);
  if (caller.storeId !== undefined) headers[headerNames.storeId] = String(caller.storeId);
  if (caller.areaId) headers[headerNames.areaId] = caller.areaId;
  if (caller.scopes.length > 0) headers[headerNames.scopes] = caller.scopes.join(" ");
  if (caller.impersonatedBy) headers[headerNames.impersonatedBy] = caller.impersonatedBy;
  if (caller.sessionId) headers[headerNames.sessionId] = caller.sessionId;
  if (caller.apiKeyId) headers[headerNames.apiKeyId] = caller.apiKeyId;
  if (caller.storeIds?.length) headers[headerNames.storeIds] = caller.storeIds.join(" ");
  if (caller.ip) headers[headerNames.ip] = caller.ip;
  // Only visible ASCII survives every HTTP hop unchanged; a user agent is informational, so the rest is dropped.
  if (caller.userAgent) headers[headerNames.userAgent] = caller.userAgent.replace(/[^\x20-\x7e]/g, "").slice(0, 512);
  if (caller.requestId) headers[REQUEST_ID_HEADER] = caller.requestId;
  return headers;
}

/** Reads the caller from a hop's headers; throws `unauthorized` unless the hop carries the internal credential. */
export function callerFromHeaders(headers: HeaderBag, internalToken: string): Caller {
  const read = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  if (!sameSecret(read(INTERNAL_TOKEN_HEADER), internalToken)) {
    throw new AppError("unauthorized", "this service only answers the gateway");
  }
  const type = read(headerNames.type) as Caller["type"] | undefined;
  if (!type || !callerTypes.has(type)) {
    return {
      ...anonymous,
      ip: read(headerNames.ip),
      userAgent: read(headerNames.userAgent),
      requestId: read(REQUEST_ID_HEADER),
    };
  }
  const integer = (name: string) => {
    const value = read(name);
    return value === undefined ? undefined : Number.parseInt(value, 10);
  };
  return {
    type,
    id: read(headerNames.id),
    role: read(headerNames.role),
    pspId: integer(headerNames.pspId),
    merchantId: integer(headerNames.merchantId),
    storeId: integer(headerNames.storeId),
    areaId: read(headerNames.areaId),
    scopes: read(headerNames.scopes)?.split(" ") ?? [],
    impersonatedBy: read(headerNames.impersonatedBy),
    sessionId: read(headerNames.sessionId),
    apiKeyId: read(headerNames.apiKeyId),
    storeIds: read(headerNames.storeIds)?.split(" ").map(Number),
    ip: read(headerNames.ip),
    userAgent: read(headerNames.userAgent),
    requestId: read(REQUEST_ID_HEADER),
  };
}

export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
