import { type IdempotencyRequest, idempotency, type SecretBox } from "@pos-cloud/common";
import type { Clock } from "../../clock";
import type { Prisma } from "../../generated/prisma/client";
import type { IdempotencyRepository } from "./idempotency.repository";

export type IdempotencyService = ReturnType<typeof idempotencyService>;

/**
 * A claim still in progress after this long was abandoned: its work (a database transaction, a provider call of at
 * most 10 s) ended long ago without completing or freeing the key, because its process died or the database went
 * away before the key could be freed. A retry takes it over instead of conflicting for 24 hours.
 */
const ABANDONED_AFTER_MS = 60 * 1000;

/** Given to the work: keeps its response for replays, in the work's own transaction. */
export interface CompleteIdempotency<T> {
  (tx: Prisma.TransactionClient, response: T): Promise<void>;
  /** The same write as a statement, for work that is one SQL statement; null when the request has no key. */
  statement(response: T): Prisma.Sql | null;
}

const noKey: CompleteIdempotency<unknown> = Object.assign(async () => {}, { statement: () => null });

export function idempotencyService(keys: IdempotencyRepository, box: SecretBox, clock: Clock) {
  const partnerKeys = idempotency<number, number>(
    {
      claim: (client_partner_id, request, times) =>
        keys.claim({ client_partner_id, idempotency_key: request.key, request_hash: request.request_hash, ...times }),
      async held(client_partner_id, key) {
        const row = await keys.find(client_partner_id, key);
        if (!row) return null;
        const answered = row.status === "completed" && row.response_sealed;
        return {
          request_hash: row.request_hash,
          response: answered ? JSON.parse(box.open(row.response_sealed!)) : null,
        };
      },
      release: (_, id) => keys.release(id),
    },
    { clock, abandonedAfterMs: ABANDONED_AFTER_MS },
  );
  const completer = <T>(id: number): CompleteIdempotency<T> => {
    const seal = (result: T) => box.seal(JSON.stringify(result));
    return Object.assign(
      async (tx: Prisma.TransactionClient, result: T) => {
        await keys.complete(tx, id, seal(result));
      },
      { statement: (result: T) => keys.completion(id, seal(result)) },
    );
  };
  return {
    /**
     * Runs `work` at most once per (partner, key) for 24 hours (`idempotency` in common): a replay answers the first
     * response, a conflict is `idempotency_conflict`, work that fails frees the key; a claim its work could not free
     * (the database went away) is taken over once abandoned.
     */
    run: <T extends object>(
      client_partner_id: number,
      request: IdempotencyRequest | null | undefined,
      work: (complete: CompleteIdempotency<T>) => Promise<T>,
    ) =>
      partnerKeys.run(client_partner_id, request, (id) =>
        work(id === null ? (noKey as CompleteIdempotency<T>) : completer<T>(id)),
      ),
  };
}
