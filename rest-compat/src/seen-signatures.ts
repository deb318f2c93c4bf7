import type { Redis } from "ioredis";

/**
 * Where the edge remembers the signatures of state-changing requests, shared by every edge instance, so a signature
 * is accepted once: the payments database (embedded) or Redis (cluster). A signature is remembered with the hash of
 * the Idempotency-Key it came with (on routes that honour one), so an exact replay reaches the key's stored answer.
 */
export interface SeenSignatures {
  /**
   * True the first time a signature is claimed within `ttlSeconds`, and again for the same non-null `keyHash`;
   * false for any other replay.
   */
  claim(fingerprint: string, ttlSeconds: number, keyHash: string | null): Promise<boolean>;
}

/** `SET NX GET` with an expiry: of concurrent claims exactly one sets the key; the others read its key hash. */
export function redisSeenSignatures(redis: Redis, prefix = "pgw"): SeenSignatures {
  return {
    async claim(fingerprint, ttlSeconds, keyHash) {
      const held = await redis.set(`${prefix}:sig:${fingerprint}`, keyHash ?? "", "EX", ttlSeconds, "NX", "GET");
      return held === null || (keyHash !== null && held === keyHash);
    },
  };
}
