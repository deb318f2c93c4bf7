import { createHash, randomFillSync } from "node:crypto";
import { monotonicFactory, ulid } from "ulid";

const pool = new Uint8Array(4096);
let next = pool.length;

/** ulid's default asks the system for one byte per character; this takes them from a buffer filled by the same CSPRNG. */
function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/** A ULID of the given time (milliseconds): sortable by time, 80 random bits. */
export const newUlid = (time: number = Date.now()) => ulid(time, pooledRandom);

/** ULIDs of one time that sort in the order they are made: rows written together, read back in that order. */
export function orderedUlids(time: number): () => string {
  const next = monotonicFactory(pooledRandom);
  return () => next(time);
}

/**
 * The ULID of the given time whose random part is the SHA-256 of `seed`: the same id each time it is derived, as
 * unlikely as a random one to meet another.
 */
export function derivedUlid(time: number, seed: string): string {
  const digest = createHash("sha256").update(seed).digest();
  let index = 0;
  return ulid(time, () => digest[index++]! / 256);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether a string can name a row with a UUID key: PostgreSQL refuses any other in a uuid column, failing the statement. */
export const isUuid = (id: string) => UUID.test(id);
