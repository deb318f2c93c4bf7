import { describe, expect, it } from "vitest";
import { GatewayAnswerError, syncIdempotencyKey } from "./gateway-sync.client";

describe("the sync's Idempotency-Key", () => {
  const body = JSON.stringify({ merchants: [{ merchant_id: 1, stores: [] }] });
  const version = "2026-11-28T09:00:00.000Z";

  it("is the same for the same configuration signed in the same second, by any process", () => {
    expect(syncIdempotencyKey(1_790_000_000, version, body)).toBe(syncIdempotencyKey(1_790_000_000, version, body));
    expect(syncIdempotencyKey(1_790_000_000, version, body)).toMatch(/^portal-sync-[0-9a-f]{64}$/);
  });

  it("differs for a later full sync, another configuration, and a change undone within the second", () => {
    const first = syncIdempotencyKey(1_790_000_000, version, body);
    expect(syncIdempotencyKey(1_790_000_001, version, body)).not.toBe(first);
    expect(syncIdempotencyKey(1_790_000_000, version, body.replace("1", "2"))).not.toBe(first);
    expect(syncIdempotencyKey(1_790_000_000, "2026-11-28T09:00:00.400Z", body)).not.toBe(first);
  });
});

it("counts the same sync still running elsewhere as a failure to try again, not a refusal", () => {
  const running = new GatewayAnswerError(409, { code: "idempotency_conflict", message: "still being processed" });
  expect(running.refused).toBe(false);
  expect(new GatewayAnswerError(403, { code: "forbidden" }).refused).toBe(true);
});
