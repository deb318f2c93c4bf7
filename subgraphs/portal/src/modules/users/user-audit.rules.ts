import type { Caller } from "@pos-cloud/common";
import type { AuditEvent } from "../../audit-sink";
import type { UserRow } from "./user.repository";

/** The audit record of a change to a user, about that user where it sits. */
export const userChange = (
  event: AuditEvent["event"],
  caller: Caller,
  user: Pick<UserRow, "id" | "psp_id" | "merchant_id" | "store_id">,
  metadata: Record<string, unknown> = {},
): AuditEvent => ({
  event,
  caller,
  user_id: caller.type === "user" ? null : user.id,
  success: true,
  target: { type: "user", id: user.id },
  place: { psp_id: user.psp_id, merchant_id: user.merchant_id, store_id: user.store_id },
  metadata,
});
