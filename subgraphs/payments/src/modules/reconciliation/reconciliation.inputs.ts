import { resolutionNote } from "@pos-cloud/common";
import { z } from "zod";

/** A QR difference closed with what was done about it. */
export const qrDifferenceResolve = z.strictObject({
  id: z.string(),
  note: resolutionNote,
});
