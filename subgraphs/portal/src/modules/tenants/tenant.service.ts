import {
  AppError,
  type Caller,
  loaderPerSelection,
  mapPage,
  notFound,
  requireCaller,
  requireService,
  requireTier,
  roles,
  type SecretBox,
  type TenantPath,
  type Tier,
} from "@pos-cloud/common";
import DataLoader from "dataloader";
import { referenceLoader } from "../../reference-loader";
import { type Page, type PageArgs, parseInput, parsePage } from "../../validation";
import { storeClosedReason } from "./store-at-work.rules";
import { merchantCreate, merchantUpdate, pspInput, storeCreate, storeUpdate } from "./tenant.inputs";
import type { MerchantRow, StoreRow, TenantRepository } from "./tenant.repository";

export type TenantService = ReturnType<typeof tenantService>;

export const merchantPath = (merchant: { id: number; psp_id: number }): TenantPath => ({
  pspId: merchant.psp_id,
  merchantId: merchant.id,
});
export const storePath = (store: StoreRow): TenantPath => ({
  pspId: store.merchant.psp_id,
  merchantId: store.merchant_id,
  storeId: store.id,
  areaId: store.area_id,
});

/*
 * Who may write what: L0 creates PSPs; L0 and L1 create, deactivate and reactivate merchants; L0 to L2 create and
 * deactivate stores and set provider credentials; L0 to L2 update merchants (L2 its own, without status); L0 to L4
 * update stores within their scope. Reads follow `canReach`: L0 and L1 read PSP details, L0 to L2 merchant details,
 * every tier (and devices) its stores. The checks themselves are `requireTier` of the access module.
 */

/** Secrets never leave the service: rows are presented with whether credentials are set, not what they are. */
export function present<T extends { provider_credentials: string | null }>(row: T) {
  const { provider_credentials, ...rest } = row;
  return { ...rest, has_provider_credentials: provider_credentials !== null };
}

const taken = (field: string) =>
  new AppError("conflict", `this ${field} is already taken at its level`, { field, constraint: "unique" });

/** A row to check the caller against; nobody learns whether an id exists without a token. */
async function merchantRow(tenants: TenantRepository, caller: Caller, id: number): Promise<MerchantRow> {
  requireCaller(caller);
  const merchant = await tenants.findMerchant(id);
  if (!merchant) throw notFound("merchant");
  return merchant;
}

/** Rows grouped under the keys of a batch, in the keys' order; a key without rows gets an empty list. */
function groupBy<T, K>(keys: readonly K[], rows: T[], keyOf: (row: T) => K) {
  const groups = new Map<K, T[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((key) => groups.get(key) ?? []);
}

type Seal = (credentials: unknown) => string | undefined;

function pspManagement(tenants: TenantRepository) {
  async function readablePsp(caller: Caller, id: number) {
    requireCaller(caller);
    const psp = await tenants.findPsp(id);
    if (!psp) throw notFound("psp");
    requireTier(caller, roles.PSP_ADMIN, { pspId: id });
    return psp;
  }

  return {
    listPsps: (caller: Caller, page: PageArgs = {}) => tenants.listPsps(caller, parsePage(page)),
    getPsp: (caller: Caller, id: number) => readablePsp(caller, id),
    async createPsp(caller: Caller, input: unknown) {
      requireTier(caller, roles.SYSTEM_OP);
      const psp = await tenants.createPsp(parseInput(pspInput, input));
      if (psp === "taken") throw taken("code");
      return psp;
    },
  };
}

function merchantManagement(tenants: TenantRepository, seal: Seal, changed: () => void) {
  return {
    async listMerchants(caller: Caller, filter: { psp_id?: number }, page: PageArgs = {}) {
      return mapPage(await tenants.listMerchants(caller, filter, parsePage(page)), present);
    },
    async getMerchant(caller: Caller, id: number) {
      const merchant = await merchantRow(tenants, caller, id);
      requireTier(caller, roles.MERCHANT_ADMIN, merchantPath(merchant));
      return present(merchant);
    },
    async createMerchant(caller: Caller, input: unknown) {
      requireCaller(caller);
      const { provider_credentials, ...data } = parseInput(merchantCreate, input);
      requireTier(caller, roles.PSP_ADMIN, { pspId: data.psp_id });
      if (!(await tenants.findPsp(data.psp_id))) throw notFound("psp");
      const merchant = await tenants.createMerchant({ ...data, provider_credentials: seal(provider_credentials) });
      if (merchant === "taken") throw taken("code");
      changed();
      return present(merchant);
    },
    async updateMerchant(caller: Caller, id: number, input: unknown) {
      requireCaller(caller);
      const { provider_credentials, ...data } = parseInput(merchantUpdate, input);
      const merchant = await merchantRow(tenants, caller, id);
      requireTier(caller, data.status === undefined ? roles.MERCHANT_ADMIN : roles.PSP_ADMIN, merchantPath(merchant));
      const updated = await tenants.updateMerchant(id, { ...data, provider_credentials: seal(provider_credentials) });
      if (updated === "taken") throw taken("code");
      changed();
      return present(updated);
    },
    async deactivateMerchant(caller: Caller, id: number) {
      requireTier(caller, roles.PSP_ADMIN, merchantPath(await merchantRow(tenants, caller, id)));
      const merchant = (await tenants.updateMerchant(id, { status: "inactive" })) as MerchantRow;
      changed();
      return present(merchant);
    },
  };
}

function storeManagement(tenants: TenantRepository, seal: Seal, changed: () => void) {
  async function storeRow(caller: Caller, id: number): Promise<StoreRow> {
    requireCaller(caller);
    const store = await tenants.findStore(id);
    if (!store) throw notFound("store");
    return store;
  }

  async function reachableStore(caller: Caller, id: number, maxTier: Tier = roles.STAFF) {
    const store = await storeRow(caller, id);
    requireTier(caller, maxTier, storePath(store));
    return store;
  }

  return {
    async listStores(caller: Caller, filter: { merchant_id?: number }, page: PageArgs = {}) {
      return mapPage(await tenants.listStores(caller, filter, parsePage(page)), present);
    },
    getStore: async (caller: Caller, id: number) => present(await reachableStore(caller, id)),
    /** The store as a scope check for other modules: found and reachable, or 404/403. */
    reachableStore,
    /**
     * What a store's receipts print about their issuer, for the POS service (never a client: it checks the caller
     * against the payment first): the store's name, address and receipt settings, the merchant's names and invoice
     * settings; null when there is no such store.
     */
    async receiptIssuer(caller: Caller, storeId: number) {
      requireService(caller);
      const store = await tenants.findStore(storeId);
      const merchant = store && (await tenants.findMerchant(store.merchant_id));
      if (!store || !merchant) return null;
      return {
        store_id: store.id,
        store_name: store.name,
        address: store.address,
        contact_phone: store.contact_phone,
        contact_email: store.contact_email ?? merchant.contact_email,
        receipt_settings: store.receipt_settings,
        merchant_name: merchant.name,
        legal_name: merchant.legal_name,
        tax_id: merchant.tax_id,
        invoice_config: merchant.invoice_config,
      };
    },
    async createStore(caller: Caller, input: unknown) {
      requireCaller(caller);
      const { provider_credentials, ...data } = parseInput(storeCreate, input);
      const merchant = await merchantRow(tenants, caller, data.merchant_id);
      requireTier(caller, roles.MERCHANT_ADMIN, merchantPath(merchant));
      const store = await tenants.createStore({ ...data, provider_credentials: seal(provider_credentials) });
      if (store === "taken") throw taken("code");
      changed();
      return present(store);
    },
    async updateStore(caller: Caller, id: number, input: unknown) {
      requireCaller(caller);
      const { provider_credentials, ...data } = parseInput(storeUpdate, input);
      const store = await storeRow(caller, id);
      // The payment configuration bounds what a card may be captured for (its tip ceiling): the merchant admin's.
      const writesTenant =
        data.status !== undefined || provider_credentials !== undefined || data.payment_config !== undefined;
      const maxTier = writesTenant ? roles.MERCHANT_ADMIN : roles.STORE_MANAGER;
      requireTier(caller, maxTier, storePath(store));
      const updated = await tenants.updateStore(id, { ...data, provider_credentials: seal(provider_credentials) });
      if (updated === "taken") throw taken("code");
      changed();
      return present(updated);
    },
    async deactivateStore(caller: Caller, id: number) {
      const store = await storeRow(caller, id);
      requireTier(caller, roles.MERCHANT_ADMIN, storePath(store));
      const updated = (await tenants.updateStore(id, { status: "inactive" })) as StoreRow;
      changed();
      return present(updated);
    },
  };
}

/** The loaders and entity references of one request. */
function tenantBatching(tenants: TenantRepository) {
  return {
    /**
     * Per-request batching of the nested view `psps { merchants { stores } }`: one query per level, each filtered
     * by the caller's scope, instead of one per parent.
     */
    loaders(caller: Caller) {
      return {
        merchantsOfPsp: new DataLoader(async (pspIds: readonly number[]) =>
          groupBy(pspIds, (await tenants.merchantsOfPsps(caller, pspIds)).map(present), (m) => m.psp_id),
        ),
        /** `merchant { stores }`, reading the columns of the Store fields asked. */
        storesOfMerchant: loaderPerSelection(
          (fields) =>
            new DataLoader(async (merchantIds: readonly number[]) =>
              groupBy(merchantIds, await tenants.storesOfMerchants(caller, merchantIds, fields), (s) => s.merchant_id),
            ),
        ),
        // Parent links: whoever reads a child may see which merchant and PSP it belongs to.
        psp: new DataLoader(async (ids: readonly number[]) => {
          const rows = await tenants.pspsByIds(ids);
          return ids.map((id) => rows.find((row) => row.id === id) ?? notFound("psp"));
        }),
        merchant: new DataLoader(async (ids: readonly number[]) => {
          const rows = (await tenants.merchants(ids)).map(present);
          return ids.map((id) => rows.find((row) => row.id === id) ?? notFound("merchant"));
        }),
        store: referenceLoader(caller, "store", tenants.stores, present),
        /** `area { stores }`: the stores of each area that the caller's store list holds. */
        storesOfArea: new DataLoader(async (areaIds: readonly string[]) =>
          groupBy(areaIds, (await tenants.storesOfAreas(caller, areaIds)).map(present), (s) => s.area_id),
        ),
      };
    },

    /**
     * Entity references (another subgraph's `Store`, `Merchant` or `Psp` by key) of one request: one statement per
     * type, each checked as its single read (`getPsp`, `getMerchant`, `getStore`) checks it.
     */
    references(caller: Caller) {
      return {
        psp: referenceLoader(caller, "psp", tenants.pspsByIds, (psp) => {
          requireTier(caller, roles.PSP_ADMIN, { pspId: psp.id });
          return psp;
        }),
        merchant: referenceLoader(caller, "merchant", tenants.merchants, (merchant) => {
          requireTier(caller, roles.MERCHANT_ADMIN, merchantPath(merchant));
          return present(merchant);
        }),
        store: referenceLoader(caller, "store", tenants.stores, (store) => {
          requireTier(caller, roles.STAFF, storePath(store));
          return present(store);
        }),
      };
    },
  };
}

/**
 * Every merchant or store write records the gateway push it owes in its own transaction (the repository); `changed`
 * hears of it once committed, so the gateway sync pushes it at once.
 */
export function tenantService(tenants: TenantRepository, box: SecretBox, changed: () => void) {
  const seal = (credentials: unknown) =>
    credentials === undefined ? undefined : box.seal(JSON.stringify(credentials));
  return {
    ...pspManagement(tenants),
    ...merchantManagement(tenants, seal, changed),
    ...storeManagement(tenants, seal, changed),
    /**
     * Rows without a caller check, for the modules whose own rules place something in the hierarchy (a user, an
     * area) and check the caller against that place themselves.
     */
    findPsp: tenants.findPsp,
    findMerchant: tenants.findMerchant,
    findStore: tenants.findStore,
    /** Why a store's people get no session now (`storeClosedReason`), or null. */
    async storeClosedReason(storeId: number) {
      const store = await tenants.findStore(storeId);
      const merchant = store && (await tenants.findMerchant(store.merchant_id));
      return storeClosedReason(store && merchant && { status: store.status, merchant });
    },
    /** Every merchant id of a PSP, unpaginated (an L1's reach). */
    merchantIdsOfPsp: tenants.merchantIdsOfPsp,
    ...tenantBatching(tenants),
  };
}

export type TenantLoaders = ReturnType<TenantService["loaders"]>;
export type TenantReferences = ReturnType<TenantService["references"]>;
export type { Page };
