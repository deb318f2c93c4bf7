import { describe, expect, it } from "vitest";
import { CLOCK_SKEW_MS, saleTimes } from "./sale-time";

const now = new Date("2031-03-10T12:00:00+09:00");
const ago = (ms: number) => new Date(now.getTime() - ms);
const HOUR = 3_600_000;
const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error;
  }
  return undefined;
};

// When a sale happened: the terminal's occurred_at within its bounds, or the moment it arrived.
describe("the time of a sale", () => {
  const saleTime = saleTimes(() => now, 72);

  it("is now when the terminal gives none, and then it was not recorded offline", () => {
    expect(saleTime(undefined)).toEqual({ occurred_at: now, recorded_offline: false });
  });

  it("is the terminal's occurred_at up to the window's age, recorded offline beyond the clock skew", () => {
    expect(saleTime(ago(2 * HOUR))).toEqual({ occurred_at: ago(2 * HOUR), recorded_offline: true });
    expect(saleTime(ago(72 * HOUR))).toEqual({ occurred_at: ago(72 * HOUR), recorded_offline: true });
    expect(saleTime(ago(CLOCK_SKEW_MS))).toEqual({ occurred_at: ago(CLOCK_SKEW_MS), recorded_offline: false });
    expect(saleTime(ago(CLOCK_SKEW_MS + 1))).toMatchObject({ recorded_offline: true });
  });

  it("takes a time ahead of the platform's clock by at most the skew as now", () => {
    expect(saleTime(ago(-CLOCK_SKEW_MS))).toEqual({ occurred_at: now, recorded_offline: false });
  });

  it("refuses a sale older than the window, or later than the skew allows, naming occurred_at", () => {
    expect(refusal(() => saleTime(ago(72 * HOUR + 1)))).toMatchObject({
      code: "invalid_request",
      details: { field: "occurred_at", constraint: "within_window" },
    });
    expect(refusal(() => saleTime(ago(-CLOCK_SKEW_MS - 1)))).toMatchObject({
      code: "invalid_request",
      details: { field: "occurred_at", constraint: "not_future" },
    });
    expect(refusal(() => saleTimes(() => now, 1)(ago(2 * HOUR)))).toMatchObject({
      details: { field: "occurred_at", constraint: "within_window" },
    });
  });
});
