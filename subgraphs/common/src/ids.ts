import { randomFillSync } from "node:crypto";
import { ulid } from "ulid";

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
