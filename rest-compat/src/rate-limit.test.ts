import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { connectRedis, createRateLimiter } from "./rate-limit";

const minute = 60_000;
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

async function reachable(url: string) {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on("error", () => {});
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const redisReachable = await reachable(redisUrl);

describe("rate limiter", () => {
  it("reports the tightest bucket and refuses beyond its limit until the window resets", async () => {
    let now = 10 * minute;
    const limiter = createRateLimiter({ limits: { ip: 2, global: 100 }, now: () => now });
    const buckets = [
      { limit: "global" as const, key: "all" },
      { limit: "ip" as const, key: "203.0.113.9" },
    ];
    const first = await limiter.take(buckets);
    expect(first).toEqual({
      exceeded: false,
      headers: { "X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "1", "X-RateLimit-Reset": String(11 * 60) },
    });
    await limiter.take(buckets);
    const third = await limiter.take(buckets);
    expect(third.exceeded).toBe(true);
    expect(third.headers["Retry-After"]).toBe("60");
    expect((await limiter.take([{ limit: "ip", key: "198.51.100.1" }])).exceeded).toBe(false);
    now += minute;
    expect((await limiter.take(buckets)).exceeded).toBe(false);
  });
});

describe.skipIf(!redisReachable)(`rate limiter on Redis (${redisUrl}; skipped when unreachable)`, () => {
  const connections: Redis[] = [];
  const connect = async (url: string) => {
    const redis = await connectRedis(url);
    connections.push(redis);
    return redis;
  };
  afterAll(() => {
    for (const redis of connections) redis.disconnect();
  });

  it("shares one budget between edge instances", async () => {
    const keyPrefix = `test-${randomUUID()}`;
    const instance = async () => createRateLimiter({ limits: { ip: 3 }, redis: await connect(redisUrl), keyPrefix });
    const [a, b] = [await instance(), await instance()];
    const bucket = [{ limit: "ip" as const, key: "203.0.113.7" }];
    const remaining = [];
    for (const limiter of [a, b, a, b]) remaining.push((await limiter.take(bucket)).headers["X-RateLimit-Remaining"]);
    expect(remaining).toEqual(["2", "1", "0", "0"]);
    expect((await a.take(bucket)).exceeded).toBe(true);
  });

  // Port 1 on loopback: nothing listens there, so every command fails at once.
  const downUrl = "redis://127.0.0.1:1";

  it("counts in memory while Redis is down when the policy is open", async () => {
    const limiter = createRateLimiter({ limits: { ip: 1 }, redis: await connect(downUrl), whenRedisDown: "open" });
    const bucket = [{ limit: "ip" as const, key: "203.0.113.8" }];
    expect(await limiter.take(bucket)).toMatchObject({ exceeded: false, headers: { "X-RateLimit-Remaining": "0" } });
    expect((await limiter.take(bucket)).exceeded).toBe(true);
  });

  it("refuses with service_unavailable while Redis is down when the policy is closed", async () => {
    const limiter = createRateLimiter({ redis: await connect(downUrl), whenRedisDown: "closed" });
    await expect(limiter.take([{ limit: "ip", key: "203.0.113.9" }])).rejects.toMatchObject({
      code: "service_unavailable",
      status: 503,
    });
  });
});
