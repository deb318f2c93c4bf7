import { createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import canonicalize from "canonicalize";
import type { AuditChainHead, AuditLog as AuditRow } from "../../generated/prisma/client";

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

/** The first link that does not hold, and why: a record (id null when the record is missing) or the sealed head. */
export interface BrokenLink {
  seq: bigint;
  id: string | null;
  reason: string;
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A head as the chain's last append leaves it, before it is sealed. */
export type ChainHead = Pick<AuditChainHead, "first_seq" | "seq" | "hash">;

/**
 * Seals the chain's head (where it starts, its last seq and hash) with HMAC-SHA-256 under a key derived from the master
 * key (HKDF, its own label): a database user can rewrite every record and recompute every SHA-256, but cannot seal a
 * head that agrees with a log cut short or stripped of its hashes.
 */
export function headSeal(masterKey: Buffer) {
  const key = Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), "pos-cloud audit chain head v1", 32));
  const macOf = (head: ChainHead) =>
    createHmac("sha256", key).update(`${head.first_seq}\n${head.seq}\n${head.hash}`).digest("hex");
  return {
    seal: (head: ChainHead) => ({ ...head, mac: macOf(head) }),
    holds: (head: AuditChainHead) => head.mac !== null && sameText(head.mac, macOf(head)),
  };
}

export type HeadSeal = ReturnType<typeof headSeal>;

/**
 * An append may seal its new head only over a head that held: sealed and naming the record it follows, or unsealed
 * as the migration left it. Otherwise the old head stays, so a log cut short is not sealed anew by the next append.
 */
export function mayReseal(
  seal: HeadSeal,
  head: AuditChainHead | null,
  last: { seq: bigint; hash: string | null } | null,
) {
  if (!head) return false;
  if (head.mac === null) return head.seq === null;
  return seal.holds(head) && head.seq === (last?.seq ?? null) && head.hash === (last?.hash ?? null);
}

/** Checks one record in `seq` order against the one before it; records below `firstSeq` predate the chain. */
function linkChecker(firstSeq: bigint) {
  let previous: { seq: bigint; hash: string | null } | undefined;
  return (row: AuditRow): BrokenLink | undefined => {
    const broken = (reason: string) => ({ seq: row.seq, id: row.id, reason });
    const expectedSeq = (previous?.seq ?? 0n) + 1n;
    const prior = previous;
    previous = { seq: row.seq, hash: row.hash };
    if (row.seq !== expectedSeq) return broken(`seq ${row.seq} follows ${expectedSeq - 1n}: records are missing`);
    if (row.seq < firstSeq) {
      return row.hash === null ? undefined : broken(`hashed record before the chain's start (seq ${firstSeq})`);
    }
    if (row.hash === null) return broken("unhashed record inside the chain: its hash was removed");
    if (row.prev_hash !== (prior?.hash ?? GENESIS_HASH)) return broken("prev_hash is not the previous record's hash");
    if (row.hash !== chainHash(row.prev_hash, row)) return broken("hash does not match the record's content");
    return undefined;
  };
}

/** The log's last record against the sealed head: a log cut at its end, or grown outside the platform, shows here. */
function headCheck(seal: HeadSeal, head: AuditChainHead | null, last: AuditRow | undefined): BrokenLink | undefined {
  const lastSeq = last?.seq ?? 0n;
  const at = (seq: bigint, reason: string) => ({ seq, id: null, reason });
  if (!head) return last ? at(lastSeq, "the chain's sealed head is missing: it was deleted") : undefined;
  if (head.mac === null) {
    const chained = last !== undefined && lastSeq >= head.first_seq;
    return chained
      ? at(lastSeq, "the chain's head is not sealed: it was reset, or no record came since the upgrade")
      : undefined;
  }
  if (!seal.holds(head))
    return at(head.seq ?? 0n, "the sealed head's seal does not hold: it was changed outside the platform");
  const headSeq = head.seq ?? 0n;
  if (lastSeq < headSeq) {
    return at(
      lastSeq + 1n,
      `records cut from the end: the sealed head is seq ${headSeq}, the log ends at seq ${lastSeq}`,
    );
  }
  if (lastSeq > headSeq)
    return at(headSeq + 1n, `records after the sealed head (seq ${headSeq}): written outside the platform`);
  if (last?.hash !== head.hash)
    return { seq: lastSeq, id: last?.id ?? null, reason: "the last record is not the one the head sealed" };
  return undefined;
}

/**
 * Checks records in `seq` order, from the first: seq has no gap, each `prev_hash` is the hash before it, each `hash`
 * is recomputed from the content, none is missing from the chain's start on; then the last against the sealed head.
 */
export function chainChecker(seal: HeadSeal, head: AuditChainHead | null) {
  const link = linkChecker(head?.first_seq ?? 1n);
  let last: AuditRow | undefined;
  return {
    next(row: AuditRow): BrokenLink | undefined {
      last = row;
      return link(row);
    },
    end: () => headCheck(seal, head, last),
    /** Records before the chain's start, unverifiable by nature: a count that grows means hashes were removed. */
    unchained: () => (last ? Math.min(Number(last.seq), Number((head?.first_seq ?? 1n) - 1n)) : 0),
  };
}
