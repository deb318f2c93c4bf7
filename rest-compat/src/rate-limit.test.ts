import { describe, expect, it } from "vitest";
import { createRateLimiter, memoryCounters } from "./rate-limit";

const minute = 60_000;

describe("rate limiter", () => {
  it("reports the tightest bucket and refuses beyond its limit until the window resets", async () => {
    let now = 10 * minute;
    const limiter = createRateLimiter({
      limits: { ip: 2, global: 100 },
      counters: memoryCounters(),
      now: () => now,
    });
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

  it("lets requests through when the counter store fails", async () => {
    const limiter = createRateLimiter({
      counters: { increment: () => Promise.reject(new Error("down")) },
    });
    expect(await limiter.take([{ limit: "ip", key: "x" }])).toEqual({ exceeded: false, headers: {} });
  });
});
