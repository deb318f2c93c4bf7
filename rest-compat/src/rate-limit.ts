import { AppError, logger } from "@pos-cloud/common";
import { Redis } from "ioredis";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

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

type LimitName = Exclude<keyof RateLimits, "windowSeconds">;
export type Bucket = { limit: LimitName; key: string };

/** What the limiter does while Redis is unreachable: count in each process's memory (`open`) or refuse (`closed`). */
export type RedisDownPolicy = "open" | "closed";

/**
 * The edge's one connection to Redis (rate-limit counters, seen signatures), once its first attempt to connect has
 * ended either way. A command fails at once while it is down rather than waiting in a queue: each user decides what
 * a failure means.
 */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on("error", (error) => logger.warn("redis error", { error: error.message }));
  await new Promise((settled) => {
    redis.once("ready", settled);
    redis.once("error", settled);
  });
  return redis;
}

export interface RateDecision {
  headers: Record<string, string>;
  /** True when some bucket is over its limit; `headers` then carries Retry-After. */
  exceeded: boolean;
}

export interface RateLimiterOptions {
  limits?: Partial<RateLimits>;
  /** Counters shared by every edge instance; absent: this process's memory. */
  redis?: Redis;
  /** Separates deployments (or test runs) that share one Redis. */
  keyPrefix?: string;
  /** `open` unless set: losing the limiter must not take payments down. */
  whenRedisDown?: RedisDownPolicy;
  now?: () => number;
}

/**
 * Fixed windows per bucket, counted by `rate-limiter-flexible` (one limiter per limit). The window's number is part
 * of the key, so `now` (a test's clock) decides the window and every instance agrees on its bounds. Every applicable
 * bucket is counted; the headers describe the tightest one (fewest requests left); any bucket over its limit makes
 * the request `exceeded`.
 */
export function createRateLimiter(options: RateLimiterOptions = {}) {
  const limits = { ...specRateLimits, ...options.limits };
  const now = options.now ?? Date.now;
  const windowMs = limits.windowSeconds * 1000;
  const prefix = options.keyPrefix ?? "pgw";
  const { redis } = options;
  const limiterOf = (name: LimitName): RateLimiterAbstract => {
    const settings = { points: limits[name], duration: limits.windowSeconds, keyPrefix: `${prefix}:rl:${name}` };
    if (!redis) return new RateLimiterMemory(settings);
    const insuranceLimiter = options.whenRedisDown === "closed" ? undefined : new RateLimiterMemory(settings);
    return new RateLimiterRedis({ ...settings, storeClient: redis, insuranceLimiter });
  };
  const limiters = Object.fromEntries(
    (Object.keys(specRateLimits) as (keyof RateLimits)[])
      .filter((name): name is LimitName => name !== "windowSeconds")
      .map((name) => [name, limiterOf(name)]),
  ) as Record<LimitName, RateLimiterAbstract>;

  async function consumed(bucket: Bucket, window: number): Promise<number> {
    try {
      return (await limiters[bucket.limit].consume(`${bucket.key}:${window}`)).consumedPoints;
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) return outcome.consumedPoints;
      logger.error("rate-limit counters unreachable; request refused", { error: (outcome as Error).message });
      throw new AppError("service_unavailable", "rate limiting is unavailable; retry shortly");
    }
  }

  return {
    async take(buckets: Bucket[]): Promise<RateDecision> {
      const at = now();
      const window = Math.floor(at / windowMs);
      const reset = Math.ceil(((window + 1) * windowMs) / 1000);
      const counts = await Promise.all(buckets.map((bucket) => consumed(bucket, window)));
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
