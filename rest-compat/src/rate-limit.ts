import { logger } from "@pos-cloud/common";
import { Redis } from "ioredis";

/**
 * Requests per window, per bucket: the spec's gateway limits for `/v1`, and `api`, the API gateway's limit per user
 * (or device, else IP) for the portal and POS.
 */
export interface RateLimits {
  merchant: number;
  store: number;
  ip: number;
  global: number;
  api: number;
  windowSeconds: number;
}

export const specRateLimits: RateLimits = {
  merchant: 1000,
  store: 500,
  ip: 100,
  global: 10_000,
  api: 1000,
  windowSeconds: 60,
};

export type Bucket = { limit: "merchant" | "store" | "ip" | "global" | "api"; key: string };

/** Counts hits of a key within one fixed window; shared by every edge instance when it lives in Redis. */
export interface Counters {
  increment(key: string, window: number, windowMs: number): Promise<number>;
}

export function memoryCounters(): Counters {
  let window = -1;
  let counts = new Map<string, number>();
  return {
    async increment(key, current) {
      // Only the current window matters; older windows are dropped whole when a new one starts.
      if (current > window) {
        window = current;
        counts = new Map();
      } else if (current < window) {
        return 0;
      }
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return count;
    },
  };
}

/**
 * The edge's one connection to Redis (rate-limit counters, seen signatures). A command fails at once while it is
 * down rather than waiting in a queue: each user decides what a failure means.
 */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on("error", (error) => logger.warn("redis error", { error: error.message }));
  return redis;
}

/** `prefix` separates deployments (or test runs) that share one Redis. */
export function redisCounters(redis: Redis, prefix = "pgw"): Counters {
  return {
    async increment(key, window, windowMs) {
      const windowKey = `${prefix}:${key}:${window}`;
      const results = await redis.multi().incr(windowKey).pexpire(windowKey, windowMs).exec();
      const [error, count] = results?.[0] ?? [new Error("no reply from redis"), 0];
      if (error) throw error;
      return Number(count);
    },
  };
}

export interface RateDecision {
  headers: Record<string, string>;
  /** True when some bucket is over its limit; `headers` then carries Retry-After. */
  exceeded: boolean;
}

/**
 * Fixed one-minute windows per bucket. Every applicable bucket is counted; the headers describe the tightest one
 * (fewest requests left); any bucket over its limit makes the request `exceeded`. When the counter store fails
 * the request passes: losing the limiter must not take payments down.
 */
export function createRateLimiter(options: { limits?: Partial<RateLimits>; counters: Counters; now?: () => number }) {
  const limits = { ...specRateLimits, ...options.limits };
  const now = options.now ?? Date.now;
  const windowMs = limits.windowSeconds * 1000;
  return {
    async take(buckets: Bucket[]): Promise<RateDecision> {
      const at = now();
      const window = Math.floor(at / windowMs);
      const reset = Math.ceil(((window + 1) * windowMs) / 1000);
      let counts: number[];
      try {
        counts = await Promise.all(
          buckets.map((bucket) => options.counters.increment(`rl:${bucket.limit}:${bucket.key}`, window, windowMs)),
        );
      } catch (error) {
        logger.warn("rate limiter unavailable; request allowed", { error: (error as Error).message });
        return { headers: {}, exceeded: false };
      }
      let tightest = { limit: 0, remaining: Number.POSITIVE_INFINITY };
      buckets.forEach((bucket, i) => {
        const limit = limits[bucket.limit];
        const remaining = Math.max(0, limit - counts[i]!);
        if (remaining < tightest.remaining || (remaining === tightest.remaining && limit < tightest.limit)) {
          tightest = { limit, remaining };
        }
      });
      const headers = {
        "X-RateLimit-Limit": String(tightest.limit),
        "X-RateLimit-Remaining": String(tightest.remaining),
        "X-RateLimit-Reset": String(reset),
      };
      if (!buckets.some((bucket, i) => counts[i]! > limits[bucket.limit])) return { headers, exceeded: false };
      const retryAfter = String(Math.max(1, reset - Math.floor(at / 1000)));
      return { headers: { ...headers, "Retry-After": retryAfter }, exceeded: true };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
