import type { Caller } from "./caller";
import { AppError } from "./errors";
import { roles, type Tier, tierOf } from "./roles";
import { askedFields } from "./selection";
import type { ReferenceBatch } from "./subgraph";

/*
 * Every permission rule of the platform: whether anyone is calling, what a tier may do, which part of the tenant
 * hierarchy a caller reaches, and what a device token's scopes allow. Services ask these before every read and
 * write; repositories turn `reachOf` into their WHERE clause, so a single read and a list follow one rule.
 */

/** Where a tenant resource sits in the hierarchy. */
export interface TenantPath {
  pspId: number;
  merchantId?: number;
  areaId?: string | null;
  storeId?: number;
}

/**
 * The part of the hierarchy a caller reaches: L0 the platform, L1 its PSP, L2 its merchant, L3 its area's stores,
 * L4 to L6 and devices their one store. A token missing the id its tier needs reaches nothing; so do partners and
 * the edge itself, which are not tenants' people.
 */
export type Reach =
  | { level: "platform" }
  | { level: "psp"; pspId: number }
  | { level: "merchant"; merchantId: number }
  | { level: "area"; merchantId: number; areaId: string }
  | { level: "store"; merchantId?: number; storeId: number }
  | { level: "nothing" };

const nothing: Reach = { level: "nothing" };

/** No bearer token: REST answers 401 `unauthorized`, GraphQL `UNAUTHENTICATED`. */
export const unauthenticated = (message = "this needs a bearer token: log in first") =>
  new AppError("unauthorized", message);

export const forbidden = (message = "outside your tenant scope") => new AppError("forbidden", message);

/** Refuses the anonymous caller: tenant data is for callers with a valid token only. */
export function requireCaller(caller: Caller): void {
  if (caller.type === "anonymous") throw unauthenticated();
}

/** What the caller reaches; the anonymous caller is refused (401) rather than shown an empty list. */
export function reachOf(caller: Caller): Reach {
  requireCaller(caller);
  if (caller.type === "device") {
    return caller.storeId === undefined
      ? nothing
      : { level: "store", storeId: caller.storeId, merchantId: caller.merchantId };
  }
  const tier = tierOf(caller);
  if (tier === undefined) return nothing;
  if (tier === roles.SYSTEM_OP) return { level: "platform" };
  if (tier === roles.PSP_ADMIN) return caller.pspId === undefined ? nothing : { level: "psp", pspId: caller.pspId };
  const merchantId = caller.merchantId;
  if (merchantId === undefined) return nothing;
  if (tier === roles.MERCHANT_ADMIN) return { level: "merchant", merchantId };
  // An area manager without an area reaches no store (null would match stores outside every area).
  if (tier === roles.AREA_MANAGER)
    return caller.areaId ? { level: "area", merchantId, areaId: caller.areaId } : nothing;
  return caller.storeId === undefined ? nothing : { level: "store", merchantId, storeId: caller.storeId };
}

/** Whether a reach covers a place. An area covers its stores, not the merchant above them. */
export function covers(reach: Reach, path: TenantPath): boolean {
  switch (reach.level) {
    case "platform":
      return true;
    case "psp":
      return path.pspId === reach.pspId;
    case "merchant":
      return path.merchantId === reach.merchantId;
    case "area":
      return path.merchantId === reach.merchantId && path.storeId !== undefined && path.areaId === reach.areaId;
    case "store":
      return path.storeId === reach.storeId && (reach.merchantId === undefined || path.merchantId === reach.merchantId);
    case "nothing":
      return false;
  }
}

/** Whether a caller may reach a resource at this place in the hierarchy; the anonymous caller reaches nothing. */
export function canReach(caller: Caller, path: TenantPath): boolean {
  return caller.type !== "anonymous" && covers(reachOf(caller), path);
}

/** 403 unless the caller reaches the place (401 without a caller). */
export function requireReach(caller: Caller, path: TenantPath): void {
  if (!covers(reachOf(caller), path)) throw forbidden();
}

/**
 * A human of this tier or above (lower is more powerful) or, for reads open to a store's staff, a device (it reads
 * what tier 6 reads), reaching `path` when one is given.
 */
export function requireTier(caller: Caller, maxTier: Tier, path?: TenantPath): void {
  requireCaller(caller);
  const tier = caller.type === "device" ? roles.STAFF : tierOf(caller);
  if (tier === undefined || tier > maxTier) throw forbidden("your role may not do this");
  if (path) requireReach(caller, path);
}

/** A human user, whatever the tier; returns the tier. */
export function requireUser(caller: Caller): Tier {
  requireCaller(caller);
  const tier = tierOf(caller);
  if (tier === undefined) throw forbidden("log in as a user");
  return tier;
}

/** The calling device itself (when `id` is given) with a scope its token carries (when `scope` is given). */
export function requireDevice(caller: Caller, need: { id?: string; scope?: string } = {}): void {
  if (caller.type === "anonymous") throw unauthenticated("this needs a device token");
  if (caller.type !== "device") throw forbidden("only a device may call this with its device token");
  if (need.id !== undefined && caller.id !== need.id) throw forbidden("device_id must be the calling device");
  if (need.scope !== undefined && !caller.scopes.includes(need.scope))
    throw forbidden(`the token lacks the ${need.scope} scope`);
}

/**
 * What a partner's API key may be restricted to, one name per group of partner operations, as Stripe's restricted
 * keys are (docs/decisions/gateway.md, "Restricted API keys"). A key restricted to some carries them as the caller's
 * `scopes`; a key without a restriction carries none and may call every partner operation.
 */
export const partnerPermissions = [
  "payment_intents:write",
  "payment_intents:read",
  "refunds:write",
  "sync:write",
  "webhooks:manage",
] as const;

export type PartnerPermission = (typeof partnerPermissions)[number];

/** 403 `missing_permission`, naming the permission the signing key lacks. */
export const missingPermission = (permission: PartnerPermission) =>
  new AppError("missing_permission", `this API key is restricted and lacks the ${permission} permission`, {
    permission,
  });

/**
 * The client partner behind an HMAC-signed call, for an operation that needs `permission` (null: any key of the
 * partner, for what a key does to itself); every other caller is refused the partner operations.
 */
export function partnerIdOf(caller: Caller, permission: PartnerPermission | null): number {
  const id = caller.type === "partner" ? Number(caller.id) : Number.NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw unauthenticated("a signed partner request is required");
  if (permission && caller.scopes.length > 0 && !caller.scopes.includes(permission))
    throw missingPermission(permission);
  return id;
}

/**
 * Whether the signing key may name this store: a key restricted to some stores reaches only those; every other
 * caller (an unrestricted key, a person) is limited by its other rules alone.
 */
export function keyReachesStore(caller: Caller, storeId: number): boolean {
  return !caller.storeIds?.length || caller.storeIds.includes(storeId);
}

/** 403 unless the signing key may name this store, as a store of another partner is refused. */
export function requireKeyStore(caller: Caller, storeId: number): void {
  if (!keyReachesStore(caller, storeId))
    throw new AppError("forbidden", "this API key is restricted to other stores", { field: "merchant_store_id" });
}

/**
 * A client partner's API key (its webhook): the partner itself, signed; the admin (L1) of the partner's PSP; a
 * system operator (L0), who alone reaches platform partners (no PSP).
 */
export function requireApiKeyAccess(caller: Caller, key: { client_partner_id: number; psp_id: number | null }): void {
  if (caller.type === "partner") {
    if (partnerIdOf(caller, "webhooks:manage") !== key.client_partner_id)
      throw forbidden("this API key is another partner's");
    return;
  }
  if (key.psp_id === null) requireTier(caller, roles.SYSTEM_OP);
  else requireTier(caller, roles.PSP_ADMIN, { pspId: key.psp_id });
}

/** What a caller does with a merchant's grants to client partners. */
export type GrantAction = "read" | "revoke" | "grant";

/**
 * A merchant's grants to client partners: a system operator (L0) anywhere, the admin (L1) of the merchant's PSP,
 * and, to read and revoke but not grant, the merchant's own admin (L2). A merchant the platform's sync has not
 * placed under a PSP yet is an operator's alone.
 */
export function requireGrantAccess(
  caller: Caller,
  merchant: { id: number; psp_id: number | null },
  action: GrantAction,
) {
  if (merchant.psp_id === null) return requireTier(caller, roles.SYSTEM_OP);
  requireTier(caller, action === "grant" ? roles.PSP_ADMIN : roles.MERCHANT_ADMIN, {
    pspId: merchant.psp_id,
    merchantId: merchant.id,
  });
}

/** Edge-only fields (partner secrets) answer the edge itself and nobody else. */
export function requireService(caller: Caller): void {
  if (caller.type !== "service") throw forbidden("only the edge may read this");
}

/**
 * The audit trail is read by L0 to L4, each within its reach (the repository's scope); staff, devices and partners
 * are refused.
 */
export function requireAuditReader(caller: Caller): void {
  requireCaller(caller);
  const tier = tierOf(caller);
  if (tier === undefined || tier > roles.STORE_MANAGER)
    throw forbidden("the audit trail is for store managers and above");
}

/**
 * Where a person sees QR reconciliation differences counted in the open alerts and resolves them: merchant admins
 * and above, over what they reach (docs/decisions/console.md, "A difference is closed by a resolution"); undefined
 * for everyone else, devices and partners included.
 */
export function differencesReach(caller: Caller): Reach | undefined {
  const tier = caller.type === "user" ? tierOf(caller) : undefined;
  return tier === undefined || tier > roles.MERCHANT_ADMIN ? undefined : reachOf(caller);
}

/**
 * What a system operator and a merchant's own admin alone see of a merchant (the operators' notifications, the card
 * settlement differences they count): every merchant's for an operator, its own for a merchant admin; undefined for
 * everyone else.
 */
export function ownMerchantScope(caller: Caller): { merchant_id?: number } | undefined {
  if (caller.type !== "user") return undefined;
  const reach = reachOf(caller);
  if (reach.level === "platform") return {};
  return reach.level === "merchant" ? { merchant_id: reach.merchantId } : undefined;
}

/** 403 unless the caller is a system operator or the merchant's own admin; `refusal` says who may. */
export function requireOwnMerchantAdmin(caller: Caller, merchantId: number, refusal: string): void {
  requireTier(caller, roles.MERCHANT_ADMIN);
  const reach = reachOf(caller);
  if (reach.level === "platform" || (reach.level === "merchant" && reach.merchantId === merchantId)) return;
  throw forbidden(refusal);
}

/**
 * A merchant's accounting export (its SFTP server and credentials, a day sent again): a system operator, or that
 * merchant's own admin (docs/decisions/pos.md, "The accounting export").
 */
export const requireAccountingExportAdmin = (caller: Caller, merchantId: number) =>
  requireOwnMerchantAdmin(
    caller,
    merchantId,
    "the accounting export is configured by a system operator or the merchant's admin",
  );

/** Platform operations (dead letters): the edge or the platform itself, or a system operator. */
export function requireOperator(caller: Caller): void {
  if (caller.type === "service") return;
  if (requireUser(caller) !== roles.SYSTEM_OP) throw forbidden("only a system operator may do this");
}

/** Whether `requireOperator` would let the caller through: for what is shown to operators and absent for others. */
export const isOperator = (caller: Caller) => caller.type === "service" || tierOf(caller) === roles.SYSTEM_OP;

/**
 * A Store as another subgraph receives it from the gateway: its key and, through `@requires`, the place the portal
 * gave it. Subgraphs that hold no tenant hierarchy check the caller against this place.
 */
export interface StoreReference {
  id: number | string;
  psp_id?: number | null;
  merchant_id?: number | null;
  area_id?: string | null;
}

/** A store the caller reaches, with the merchant the portal placed it under. */
export interface ReachableStore {
  id: number;
  merchantId: number;
}

/**
 * The store a reference names, once the caller is found to reach it. A reference without its place (one a client
 * wrote itself) is refused like a store out of reach.
 */
export function reachableStoreReference(caller: Caller, reference: StoreReference): ReachableStore {
  const id = Number(reference.id);
  const { psp_id, merchant_id, area_id } = reference;
  if (!Number.isSafeInteger(id) || typeof psp_id !== "number" || typeof merchant_id !== "number") throw forbidden();
  requireReach(caller, { pspId: psp_id, merchantId: merchant_id, areaId: area_id ?? null, storeId: id });
  return { id, merchantId: merchant_id };
}

/** How many rows of a subgraph each of many reachable stores has (its open orders, its intents), in one statement. */
export type StoreCounter<Context> = (
  context: Context,
  stores: ReachableStore[],
) => Promise<(store: ReachableStore) => number>;

/** A reachable store as a subgraph's Store fields receive it: with its count when the query asks for it. */
export interface CountedStore extends ReachableStore {
  count?: number;
}

/**
 * The `Store` references of one `_entities` call, in a subgraph that adds a count and reads by id to the portal's
 * stores: each reference is checked against the caller (a refusal fails that reference alone), and when the query
 * asks for `count.field`, it is read for every reachable store at once. The Store fields resolve from the answer, a
 * `CountedStore`.
 */
export function storeReferences<Context extends { caller: Caller }>(count: {
  field: string;
  of: StoreCounter<Context>;
}): ReferenceBatch<Context> {
  return async (references, context, info) => {
    const checked = references.map((reference) => {
      try {
        return reachableStoreReference(context.caller, reference as unknown as StoreReference);
      } catch (error) {
        return error as Error;
      }
    });
    const reachable = checked.filter((store): store is ReachableStore => !(store instanceof Error));
    if (reachable.length === 0 || !askedFields(info).includes(count.field)) return checked;
    const countOf = await count.of(context, reachable);
    // One shape for every store: a spread with a computed key costs 15 times as much per object.
    return checked.map((store): CountedStore | Error =>
      store instanceof Error ? store : { id: store.id, merchantId: store.merchantId, count: countOf(store) },
    );
  };
}

/** A grouped count: a store, the merchant its rows were written under, how many. */
export type StoreCount = [store_id: number, merchant_id: number, count: number];

/** How many rows each store has under the merchant the portal placed it in: a store's rows under another merchant do not count. */
export function countsPerStore(rows: StoreCount[]) {
  const counts = new Map(rows.map(([store_id, merchant_id, count]) => [`${store_id}:${merchant_id}`, count]));
  return (store: ReachableStore) => counts.get(`${store.id}:${store.merchantId}`) ?? 0;
}
