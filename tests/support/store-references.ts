import { randomInt } from "node:crypto";
import { type Caller, callerHeaders, type SubgraphHost } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it, type Mock, vi } from "vitest";

const token = "internal-token-for-tests";

export interface StoreReferenceSubject {
  /** The subgraph hosted with `token` as its internal credential. */
  host: SubgraphHost;
  /** What runs the statement that reads the field for a batch of stores, and its method: one statement per call. */
  statements: { runner: object; method: string };
  /** Gives store k of `stores` exactly k rows that the field counts, under `merchantId`. */
  seed(merchantId: number, stores: number[]): Promise<unknown>;
  close(): Promise<unknown>;
}

/**
 * A subgraph that adds a field to the portal's Store (pos, payments), reached directly with the internal credential,
 * as the gateway (or someone holding the credential) reaches it: every Store reference is checked against the
 * caller, and a whole hierarchy's stores are read in one statement.
 */
export function describeStoreReferences(
  field: string,
  open: (internalToken: string) => Promise<StoreReferenceSubject>,
) {
  describe(`Store.${field} by entity reference`, () => {
    let subject: StoreReferenceSubject;
    const psp = randomInt(1, 2_000_000_000);
    const merchant = randomInt(1, 2_000_000_000);
    const stores = Array.from({ length: 30 }, () => randomInt(1, 2_000_000_000));
    const place = (id: number) => ({ __typename: "Store", id, psp_id: psp, merchant_id: merchant, area_id: null });
    const query = `query($representations: [_Any!]!) {
      _entities(representations: $representations) { ... on Store { id ${field} } }
    }`;
    const ask = (caller: Caller, representations: object[]) =>
      subject.host.execute({ query, variables: { representations } }, callerHeaders(caller, token));

    let counted: Mock;

    beforeAll(async () => {
      subject = await open(token);
      // Prisma's client cannot be spied on with vi.spyOn; the subgraph's repository reads this property per call.
      const { runner, method } = subject.statements;
      const run = runner as Record<string, (...args: unknown[]) => unknown>;
      counted = vi.fn(run[method]!.bind(runner));
      run[method] = counted;
      await subject.seed(merchant, stores);
    });
    afterAll(() => subject?.close());

    it("reads any number of stores in one statement", async () => {
      counted.mockClear();
      const admin: Caller = { type: "user", role: "PSP_ADMIN", pspId: psp, scopes: [] };
      const result = await ask(admin, stores.map(place));
      expect(result.errors).toBeUndefined();
      expect(result.data?._entities).toEqual(stores.map((id, k) => ({ id, [field]: k })));
      expect(counted).toHaveBeenCalledTimes(1);
    });

    it("reads nothing when the query does not ask for the count", async () => {
      counted.mockClear();
      const admin: Caller = { type: "user", role: "PSP_ADMIN", pspId: psp, scopes: [] };
      const idsOnly = `query($representations: [_Any!]!) { _entities(representations: $representations) { ... on Store { id } } }`;
      const result = await subject.host.execute(
        { query: idsOnly, variables: { representations: stores.map(place) } },
        callerHeaders(admin, token),
      );
      expect(result).toEqual({ data: { _entities: stores.map((id) => ({ id })) } });
      expect(counted).not.toHaveBeenCalled();
    });

    it("refuses a caller of another tenant, at every tier and as a device, and reads nothing for it", async () => {
      counted.mockClear();
      const store = stores[1]!;
      const at = { pspId: psp, merchantId: merchant };
      const elsewhere: Caller[] = [
        { type: "user", role: "PSP_ADMIN", pspId: psp + 1, scopes: [] },
        { type: "user", role: "MERCHANT_ADMIN", pspId: psp, merchantId: merchant + 1, scopes: [] },
        { type: "user", role: "AREA_MANAGER", ...at, areaId: "another-area", scopes: [] },
        { type: "user", role: "STORE_MANAGER", ...at, storeId: store + 1, scopes: [] },
        { type: "user", role: "STAFF_LEADER", ...at, storeId: store + 1, scopes: [] },
        { type: "user", role: "STAFF", ...at, storeId: store + 1, scopes: [] },
        { type: "device", id: "d", merchantId: merchant, storeId: store + 1, scopes: [] },
        { type: "partner", id: "1", scopes: [] },
      ];
      for (const caller of elsewhere) {
        const result = await ask(caller, [place(store)]);
        expect(result.errors?.map((error) => error.extensions?.code)).toEqual(["forbidden"]);
        expect(result.data?._entities).toEqual([null]);
      }
      const anonymous = await ask({ type: "anonymous", scopes: [] }, [place(store)]);
      expect(anonymous.errors?.[0]?.extensions?.code).toBe("unauthorized");
      expect(counted).not.toHaveBeenCalled();
    });

    it("refuses a reference without its place, and finds nothing under a merchant the store is not in", async () => {
      const store = stores[5]!;
      const bare = await ask({ type: "user", role: "SYSTEM_OP", scopes: [] }, [{ __typename: "Store", id: store }]);
      expect(bare.errors?.[0]?.extensions?.code).toBe("forbidden");
      const other: Caller = { type: "user", role: "MERCHANT_ADMIN", pspId: psp, merchantId: merchant + 1, scopes: [] };
      const claimed = await ask(other, [{ ...place(store), merchant_id: merchant + 1 }]);
      expect(claimed.data?._entities).toEqual([{ id: store, [field]: 0 }]);
    });

    it("answers a store's staff and its device for their own store only", async () => {
      const store = stores[3]!;
      const staff: Caller = {
        type: "user",
        role: "STAFF",
        pspId: psp,
        merchantId: merchant,
        storeId: store,
        scopes: [],
      };
      const device: Caller = { type: "device", id: "d", merchantId: merchant, storeId: store, scopes: [] };
      for (const caller of [staff, device]) {
        const result = await ask(caller, [place(store), place(stores[4]!)]);
        expect(result.data?._entities).toEqual([{ id: store, [field]: 3 }, null]);
        expect(result.errors?.map((error) => error.extensions?.code)).toEqual(["forbidden"]);
      }
    });
  });
}
