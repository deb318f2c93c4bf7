import type { Caller } from "@pos-cloud/common";
import type { Bucket, RateDecision, RateLimiter } from "@pos-cloud/rest-compat";

/**
 * The API gateway's limit for portal and POS traffic, HTTP and WebSocket alike: the spec's 1,000 per minute counts
 * per user (or device) and per IP, both, so neither many addresses nor many accounts widen one client's budget.
 */
export function takeApiLimit(limiter: RateLimiter, caller: Caller): Promise<RateDecision> {
  const buckets: Bucket[] = [{ limit: "api", key: `ip:${caller.ip}` }];
  if ((caller.type === "user" || caller.type === "device") && caller.id)
    buckets.push({ limit: "api", key: `${caller.type}:${caller.id}` });
  return limiter.take(buckets);
}
