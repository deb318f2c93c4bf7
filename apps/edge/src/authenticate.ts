import {
  AppError,
  anonymous,
  type Caller,
  DEFAULT_API_AUDIENCE,
  DEVICE_TOKEN_ISSUER,
  HUMAN_TOKEN_ISSUER,
  isRole,
  logger,
} from "@pos-cloud/common";
import { createLocalJWKSet, decodeProtectedHeader, errors, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import { EdgeJwksDocument } from "./operations/portal.generated";
import { followRevocations, revocationSubjects } from "./revocations";
import type { CallSubgraph } from "./subgraph-client";

/** Human tokens are RS256 and device tokens ES256; any other algorithm (none, HS*) is refused before any key is used. */
const kinds = {
  RS256: { purpose: "human", issuer: HUMAN_TOKEN_ISSUER, required: ["sub", "role", "iat", "exp", "jti"] },
  ES256: { purpose: "device", issuer: DEVICE_TOKEN_ISSUER, required: ["sub", "exp", "jti"] },
} as const;
type Purpose = (typeof kinds)[keyof typeof kinds]["purpose"];

/** An unknown kid refetches the JWKS at most this often; a cached JWKS is refreshed at least this often. */
const REFETCH_COOLDOWN_MS = 30_000;
const MAX_CACHE_MS = 10 * 60_000;
/** Allowed clock difference between the portal that signed and this edge. */
const CLOCK_TOLERANCE_SECONDS = 5;

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export interface Authenticated {
  caller: Caller;
  /** When the token stops being valid (long-lived WebSocket connections check it per operation). */
  expiresAt?: Date;
  /** An opaque bearer where those are allowed: a payment token, checked by the operation that uses it. */
  paymentToken?: string;
  /** Whether the token has been revoked since (long-lived WebSocket connections check it per operation). */
  revoked?: () => boolean;
}

const invalid = (reason?: string) =>
  new AppError("unauthorized", "the bearer token is invalid or expired", reason ? { reason } : {});

/**
 * A revoked token's refusal. A store's or merchant's revocation means it was deactivated: the answer names it, so a
 * terminal or a person of that store learns why rather than logging in again to be refused.
 */
function revokedBy(subject: string) {
  const [kind, id] = subject.split(":");
  if (kind !== "store" && kind !== "merchant") return invalid("revoked");
  return new AppError("unauthorized", `the token's ${kind} ${id} was deactivated`, {
    reason: `${kind}_inactive`,
    [`${kind}_id`]: Number(id),
  });
}

/**
 * Verifies bearer JWTs against the portal's JWKS and turns their claims into the `Caller` that every hop carries.
 * No token means anonymous (subgraphs refuse what anonymous may not do); a bad token is always 401 `unauthorized`.
 */
export function createAuthenticator(
  callSubgraph: CallSubgraph,
  clock: () => Date = () => new Date(),
  audience = DEFAULT_API_AUDIENCE,
) {
  const revocations = followRevocations(callSubgraph, clock);
  function keySet(purpose: Purpose) {
    let keys: ReturnType<typeof createLocalJWKSet> | undefined;
    let fetchedAt = 0;
    let fetching: Promise<void> | undefined;
    const refetch = () => {
      fetching ??= callSubgraph("portal", EdgeJwksDocument, { purpose })
        .then((data) => {
          keys = createLocalJWKSet(data.jwks as JSONWebKeySet);
          fetchedAt = clock().getTime();
        })
        .finally(() => {
          fetching = undefined;
        });
      return fetching;
    };
    return async (...args: Parameters<ReturnType<typeof createLocalJWKSet>>) => {
      const age = clock().getTime() - fetchedAt;
      if (!keys || age >= MAX_CACHE_MS) await refetch();
      try {
        return await keys!(...args);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey) || clock().getTime() - fetchedAt < REFETCH_COOLDOWN_MS)
          throw error;
        await refetch();
        return keys!(...args);
      }
    };
  }
  const keySets = { human: keySet("human"), device: keySet("device") };

  async function verify(token: string): Promise<Authenticated> {
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw invalid();
    }
    const kind = alg === "RS256" || alg === "ES256" ? kinds[alg] : undefined;
    if (!kind) throw invalid("algorithm");
    let payload: JWTPayload;
    try {
      await revocations.ready();
      ({ payload } = await jwtVerify(token, keySets[kind.purpose], {
        algorithms: [alg!],
        issuer: kind.issuer,
        audience,
        requiredClaims: [...kind.required],
        currentDate: clock(),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw invalid("expired");
      if (error instanceof errors.JOSEError) throw invalid();
      logger.error("could not verify a bearer token", { error });
      throw new AppError("internal_error", "could not verify the token");
    }
    const caller = kind.purpose === "human" ? humanCaller(payload) : deviceCaller(payload);
    const subjects = revocationSubjects(caller);
    // A token without `iat` (device tokens need not carry it) counts as signed before any revocation.
    const issuedAt = typeof payload.iat === "number" ? payload.iat : 0;
    const revoked = () => revocations.revokedBy(subjects, issuedAt) !== undefined;
    const subject = revocations.revokedBy(subjects, issuedAt);
    if (subject) throw revokedBy(subject);
    return { caller, expiresAt: new Date(payload.exp! * 1000), revoked };
  }

  return {
    /**
     * The caller of an `Authorization` header. Other schemes (HMAC-SHA256) are left to their own checks; a bearer
     * value that is no JWT is an opaque payment token where those live (`opaqueBearerAllowed`), invalid elsewhere.
     */
    async authenticate(authorization: string | undefined, opaqueBearerAllowed = false): Promise<Authenticated> {
      if (!authorization) return { caller: anonymous };
      const [scheme, token, ...rest] = authorization.trim().split(/\s+/);
      if (scheme?.toLowerCase() !== "bearer") return { caller: anonymous };
      if (!token || rest.length > 0) throw invalid();
      if (!JWT_SHAPE.test(token)) {
        if (opaqueBearerAllowed) return { caller: anonymous, paymentToken: token };
        throw invalid();
      }
      return verify(token);
    },
    /** Stops following the revocations (the edge is closing). */
    stop: revocations.stop,
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;

const optionalInteger = (value: unknown) => {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw invalid("claims");
  return value;
};
const optionalString = (value: unknown) => {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "string") throw invalid("claims");
  return value;
};

function humanCaller(claims: JWTPayload): Caller {
  if (typeof claims.sub !== "string" || !isRole(claims.role)) throw invalid("claims");
  return {
    type: "user",
    id: claims.sub,
    role: claims.role,
    pspId: optionalInteger(claims.psp_id),
    merchantId: optionalInteger(claims.merchant_id),
    areaId: optionalString(claims.area_id),
    storeId: optionalInteger(claims.store_id),
    impersonatedBy: optionalString(claims.impersonated_by),
    sessionId: optionalString(claims.sid),
    scopes: [],
  };
}

function deviceCaller(claims: JWTPayload): Caller {
  const scope = claims.scope;
  if (typeof claims.sub !== "string" || !Array.isArray(scope) || !scope.every((s) => typeof s === "string"))
    throw invalid("claims");
  return {
    type: "device",
    id: claims.sub,
    merchantId: optionalInteger(claims.merchant_id),
    storeId: optionalInteger(claims.store_id),
    scopes: scope as string[],
  };
}
