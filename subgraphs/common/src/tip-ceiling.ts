import { z } from "zod";

/** How far above its amount a card intent of a store may be captured for a tip, in percent (0: not at all). */
export const tipCeilingPercent = z.number().int().min(0).max(100);
/** A store's ceiling when neither it nor its merchant sets one (docs/decisions/gateway.md, "A tip at capture"). */
export const DEFAULT_TIP_CEILING_PERCENT = 20;

/** Where a store's ceiling comes from: its own payment_config, its merchant's, or the default. */
export type TipCeilingSource = "store" | "merchant" | "default";

/**
 * A store's tip ceiling: its own `payment_config` key over its merchant's, else the default. A value saved before
 * the key was checked is skipped.
 */
export function tipCeilingOf(
  storeConfig: unknown,
  merchantConfig: unknown,
): { percent: number; source: TipCeilingSource } {
  for (const [source, config] of [
    ["store", storeConfig],
    ["merchant", merchantConfig],
  ] as const) {
    const parsed = tipCeilingPercent.safeParse((config as Record<string, unknown> | null)?.tip_ceiling_percent);
    if (parsed.success) return { percent: parsed.data, source };
  }
  return { percent: DEFAULT_TIP_CEILING_PERCENT, source: "default" };
}
