import { createHash } from "node:crypto";
import { AppError, invalidField, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { Prisma } from "../../generated/prisma/client";
import type { IdempotencyRepository } from "./idempotency.repository";

export type IdempotencyService = ReturnType<typeof idempotencyService>;

const RETENTION_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = 255;
/**
 * A claim still in progress after this long was abandoned: its work (a database transaction, a provider call of at
 * most 10 s) ended long ago without completing or freeing the key, because its process died or the database went
 * away before the key could be freed. A retry takes it over instead of conflicting for 24 hours.
 */
const ABANDONED_AFTER_MS = 60 * 1000;

/** An Idempotency-Key and the fingerprint of the request it came with (`idempotencyRequest`). */
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
 * so a retry that re-serialises the same body (another key order, other spacing) is the same request. Null when
 * the caller sent no key.
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

/** Given to the work: keeps its response for replays, in the work's own transaction. */
export interface CompleteIdempotency<T> {
  (tx: Prisma.TransactionClient, response: T): Promise<void>;
  /** The same write as a statement, for work that is one SQL statement; null when the request has no key. */
  statement(response: T): Prisma.Sql | null;
}

const noKey: CompleteIdempotency<unknown> = Object.assign(async () => {}, { statement: () => null });

export function idempotencyService(keys: IdempotencyRepository, box: SecretBox, clock: Clock) {
  return {
    /**
     * Runs `work` at most once per (partner, key) for 24 hours. The same request again replays the first response;
     * a different request, or the same one while the first still runs, is `idempotency_conflict`. Work that fails
     * frees the key, so nothing is remembered for a request that changed nothing; a claim its work could not free
     * (the database went away) is taken over once abandoned.
     */
    async run<T extends object>(
      client_partner_id: number,
      request: IdempotencyRequest | null | undefined,
      work: (complete: CompleteIdempotency<T>) => Promise<T>,
    ): Promise<T & { replayed: boolean }> {
      if (!request) return { ...(await work(noKey)), replayed: false };
      if (request.key.length === 0 || request.key.length > MAX_KEY_LENGTH) {
        throw invalidField("Idempotency-Key", "length", `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} characters`);
      }
      const now = clock();
      const claimed = await keys.claim({
        client_partner_id,
        idempotency_key: request.key,
        request_hash: request.request_hash,
        now,
        expires_at: new Date(now.getTime() + RETENTION_MS),
        abandoned_before: new Date(now.getTime() - ABANDONED_AFTER_MS),
      });
      if (claimed === null) {
        const existing = await keys.find(client_partner_id, request.key);
        if (existing && existing.request_hash !== request.request_hash) {
          throw new AppError("idempotency_conflict", "this Idempotency-Key was used for a different request");
        }
        if (existing?.status !== "completed" || !existing.response_sealed) {
          throw new AppError("idempotency_conflict", "a request with this Idempotency-Key is still being processed");
        }
        return { ...(JSON.parse(box.open(existing.response_sealed)) as T), replayed: true };
      }
      const seal = (result: T) => box.seal(JSON.stringify(result));
      const complete = Object.assign(
        async (tx: Prisma.TransactionClient, result: T) => {
          await keys.complete(tx, claimed, seal(result));
        },
        { statement: (result: T) => keys.completion(claimed, seal(result)) },
      );
      try {
        const response = await work(complete);
        return { ...response, replayed: false };
      } catch (error) {
        await keys.release(claimed);
        throw error;
      }
    },
  };
}
