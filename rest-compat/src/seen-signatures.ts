import type { Redis } from "ioredis";

/**
 * Where the edge remembers the signatures of state-changing requests, shared by every edge instance, so a signature
 * is accepted once: the payments database (embedded) or Redis (cluster).
 */
export interface SeenSignatures {
  /** True the first time a signature is claimed within `ttlSeconds`; false for a replay. */
  claim(fingerprint: string, ttlSeconds: number): Promise<boolean>;
}

/** `SET NX` with an expiry: of concurrent claims exactly one sets the key. */
export function redisSeenSignatures(redis: Redis, prefix = "pgw"): SeenSignatures {
  return {
    async claim(fingerprint, ttlSeconds) {
      return (await redis.set(`${prefix}:sig:${fingerprint}`, "1", "EX", ttlSeconds, "NX")) === "OK";
    },
  };
}
