import { createHash } from "node:crypto";
import { AppError, invalidField } from "./errors";

/** How long an Idempotency-Key answers for its first request (the spec's idempotency retention). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

/** An Idempotency-Key and the fingerprint of the request it came with. */
export interface IdempotencyRequest {
  key: string;
  request_hash: string;
}

/**
 * Sorts every object's keys and drops null fields (absent and null mean the same to these operations), so the same
 * parameters give the same text however a client serialised them.
 */
const canonicalJson = (value: unknown) =>
  JSON.stringify(value, (_, field: unknown) => {
    if (field === null) return undefined;
    if (typeof field !== "object" || Array.isArray(field)) return field;
    const object = field as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .map((name) => [name, object[name]]),
    );
  });

/**
 * Binds an Idempotency-Key to an operation and its parameters, as Stripe does: the request's meaning, not its bytes,
 * so a retry that re-serialises the same body (another key order, other spacing) is the same request. Every
 * Idempotency-Key of the platform (the gateway's, POS's) is bound this way. Null when the caller sent no key.
 */
export function idempotencyRequest(
  key: string | null | undefined,
  operation: string,
  parameters: Record<string, unknown>,
): IdempotencyRequest | null {
  if (key === null || key === undefined) return null;
  const request_hash = createHash("sha256").update(canonicalJson({ operation, parameters })).digest("hex");
  return { key, request_hash };
}

/** What holds a key another request claimed: its fingerprint, and its answer once it has one. */
export interface HeldKey {
  request_hash: string;
  response: unknown;
}

/**
 * Where a subgraph keeps its keys (its own table, its own scope: a partner at the gateway, a store in POS). `claim`
 * is one statement that only one of concurrent claims wins; it also takes over an expired key, and a key abandoned
 * before `abandoned_before` when the store's rule allows it. Null when another request holds the key.
 */
export interface IdempotencyKeyStore<Scope, Claim> {
  claim(
    scope: Scope,
    request: IdempotencyRequest,
    times: { now: Date; expires_at: Date; abandoned_before: Date },
  ): Promise<Claim | null>;
  held(scope: Scope, key: string): Promise<HeldKey | null>;
  /** Frees the key of a request that failed, so nothing is remembered for a request that changed nothing. */
  release(scope: Scope, claim: Claim): Promise<unknown>;
}

export type IdempotencyOutcome<Claim> = { replayed: true; response: unknown } | { replayed: false; claim: Claim };

/**
 * The one idempotency of the platform (payments' Idempotency-Key, POS's): a key is claimed for a request; the same
 * request again replays the first answer; another request with the key, or the same one while the first still runs,
 * is `idempotency_conflict`. A claim still running `abandonedAfterMs` after it was made was abandoned (its process
 * died): the store's claim, or its recovery pass, releases it.
 */
export function idempotency<Scope, Claim>(
  store: IdempotencyKeyStore<Scope, Claim>,
  options: { clock: () => Date; abandonedAfterMs: number },
) {
  const abandonedBefore = (now: Date) => new Date(now.getTime() - options.abandonedAfterMs);

  async function claim(scope: Scope, request: IdempotencyRequest): Promise<IdempotencyOutcome<Claim>> {
    if (request.key.length === 0 || request.key.length > MAX_KEY_LENGTH)
      throw invalidField("Idempotency-Key", "length", `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`);
    const now = options.clock();
    const times = {
      now,
      expires_at: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS),
      abandoned_before: abandonedBefore(now),
    };
    const claimed = await store.claim(scope, request, times);
    if (claimed !== null) return { replayed: false, claim: claimed };
    const held = await store.held(scope, request.key);
    if (held && held.request_hash !== request.request_hash)
      throw new AppError("idempotency_conflict", "this Idempotency-Key was used for a different request");
    if (held?.response === null || held?.response === undefined)
      throw new AppError("idempotency_conflict", "a request with this Idempotency-Key is still being processed");
    return { replayed: true, response: held.response };
  }

  return {
    claim,
    release: (scope: Scope, claimed: Claim) => store.release(scope, claimed),
    abandonedBefore,
    /**
     * Runs `work` at most once per (scope, key): a replay answers the first response with `replayed: true`; work
     * that fails frees the key. Without a request (no key sent), the work just runs. `work` stores its answer
     * through the claim, in its own transaction.
     */
    async run<T extends object>(
      scope: Scope,
      request: IdempotencyRequest | null | undefined,
      work: (claim: Claim | null) => Promise<T>,
    ): Promise<T & { replayed: boolean }> {
      if (!request) return { ...(await work(null)), replayed: false };
      const outcome = await claim(scope, request);
      if (outcome.replayed) return { ...(outcome.response as T), replayed: true };
      try {
        return { ...(await work(outcome.claim)), replayed: false };
      } catch (error) {
        await store.release(scope, outcome.claim);
        throw error;
      }
    },
  };
}
