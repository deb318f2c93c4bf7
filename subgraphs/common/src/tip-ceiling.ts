import { z } from "zod";

/** How far above its amount a card intent of a store may be captured for a tip, in percent (0: not at all). */
export const tipCeilingPercent = z.number().int().min(0).max(100);
/** A store's ceiling when neither it nor its merchant sets one (docs/decisions/gateway.md, "A tip at capture"). */
export const DEFAULT_TIP_CEILING_PERCENT = 20;
