import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { AuditLog as AuditRow } from "../../generated/prisma/client";

/** The `prev_hash` of the chain's first record. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * What a record's hash covers: every column but the hashes themselves, timestamps as ISO 8601 UTC with milliseconds,
 * `seq` as a number, in RFC 8785 canonical JSON (keys sorted, no whitespace, numbers in shortest form), so any
 * implementation of RFC 8785 recomputes it.
 */
export function canonicalContent(row: Omit<AuditRow, "prev_hash" | "hash">): string {
  return canonicalize({
    id: row.id,
    seq: Number(row.seq),
    event: row.event,
    timestamp: row.timestamp.toISOString(),
    user_id: row.user_id,
    actor_type: row.actor_type,
    actor_id: row.actor_id,
    ip_address: row.ip_address,
    user_agent: row.user_agent,
    success: row.success,
    target_type: row.target_type,
    target_id: row.target_id,
    psp_id: row.psp_id,
    merchant_id: row.merchant_id,
    store_id: row.store_id,
    metadata: row.metadata,
    source_event_id: row.source_event_id,
  }) as string;
}

/** hex(SHA-256(prev_hash + "\n" + canonical content)). */
export const chainHash = (prevHash: string, row: Omit<AuditRow, "prev_hash" | "hash">) =>
  createHash("sha256")
    .update(`${prevHash}\n${canonicalContent(row)}`)
    .digest("hex");

/** The first record whose link does not hold, and why; undefined when the whole chain holds. */
export interface BrokenLink {
  seq: bigint;
  id: string;
  reason: string;
}

/**
 * Checks records in `seq` order, from the first: seq has no gap, each `prev_hash` is the hash before it and each
 * `hash` is recomputed from the content. Records written before the chain existed (no hash) may only precede it.
 */
export function chainChecker() {
  let previous: { seq: bigint; hash: string | null } | undefined;
  return (row: AuditRow): BrokenLink | undefined => {
    const broken = (reason: string) => ({ seq: row.seq, id: row.id, reason });
    const expectedSeq = (previous?.seq ?? 0n) + 1n;
    const prior = previous;
    previous = { seq: row.seq, hash: row.hash };
    if (row.seq !== expectedSeq) return broken(`seq ${row.seq} follows ${expectedSeq - 1n}: records are missing`);
    if (row.hash === null) {
      return prior?.hash ? broken("unhashed record after the chain began") : undefined;
    }
    if (row.prev_hash !== (prior?.hash ?? GENESIS_HASH)) return broken("prev_hash is not the previous record's hash");
    if (row.hash !== chainHash(row.prev_hash, row)) return broken("hash does not match the record's content");
    return undefined;
  };
}
