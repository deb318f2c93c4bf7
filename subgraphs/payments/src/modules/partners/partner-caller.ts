import { AppError, type Caller } from "@pos-cloud/common";

/** The client partner behind an HMAC-signed call; every other caller is refused the partner operations. */
export function partnerIdOf(caller: Caller): number {
  const id = caller.type === "partner" ? Number(caller.id) : Number.NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new AppError("unauthorized", "a signed partner request is required");
  return id;
}

/** Edge-only fields (partner secrets) answer the edge itself and nobody else. */
export function requireService(caller: Caller): void {
  if (caller.type !== "service") throw new AppError("forbidden", "only the edge may read this");
}
