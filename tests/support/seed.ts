import { randomInt } from "node:crypto";
import type { Caller, Role } from "@pos-cloud/common";
import { readSandboxSettings } from "@pos-cloud/sandbox-provider";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { createTierUser, type DemoProviders, type DemoUser, demoProviders } from "../../apps/platform/src/demo";
import { ensurePlatformKeys } from "../../apps/platform/src/sync-partner";
import { uniqueCode } from "./environment";
import { grantMerchant } from "./payments";
import type { TestPlatform } from "./platform-handle";
import { operator } from "./portal-seed";

export interface SeededMerchant {
  id: number;
  code: string;
  name: string;
  psp_id: number;
}

export interface SeededStore {
  id: number;
  code: string;
  name: string;
  merchant_id: number;
  psp_id: number;
  /** For another store of the same merchant: `seed(platform).store({ merchant: store.merchant })`. */
  merchant: SeededMerchant;
}

/** A client partner's API key (what `signed` in gateway.ts signs with) and the code of the store it serves. */
export interface SeededPartner {
  client_id: string;
  secret: string;
  store_code: string;
}

/** An API key of the platform's own POS partner, which serves every portal store (what demo.json's `partner` is). */
export interface SeededStorePartner extends SeededPartner {
  client_partner_id: number;
  webhook_secret: string;
}

/** An active terminal: what `deviceToken` (device.ts) needs to get its tokens. */
export interface SeededDevice {
  id: string;
  client_id: string;
  serial_number: string;
  private_jwk: JWK;
}

/**
 * Fixture builders (CONTRIBUTING.md, "How to test"): a test says what it needs instead of leaning on the demo tenant,
 * and gets fresh codes so tests never collide. They go through the portal's services as the demo does, so they work in
 * either wiring (`platform.portal` is the running portal, or a client of the cluster's database).
 *
 * ```ts
 * const store = await seed(platform).store();            // with its own PSP and merchant
 * const staff = await seed(platform).user("STAFF", store);
 * const tokens = await logIn(platform.baseUrl, staff);
 * const terminal = await seed(platform).device(store);
 * const manager = await seed(platform).user("AREA_MANAGER", store, await seed(platform).area(store));
 * const partner = await seed(platform).partner();      // signs /v1 calls for a store of its own at the gateway
 * const till = await seed(platform).store({ sells: true }); // cash, card and QR through the sandbox at the gateway
 * const pos = await seed(platform).storePartner(till);  // signs /v1 calls for that store (or a new one), as POS does
 * ```
 */
export function seed(platform: Pick<TestPlatform, "portal" | "partners" | "payments" | "dataDir">) {
  const { portal, partners, payments, dataDir } = platform;

  async function psp() {
    const created = await portal.tenants.createPsp(operator, { code: uniqueCode("PSP"), name: "Seeded PSP" });
    return { id: created.id, code: created.code };
  }

  async function merchant(under?: { id: number }): Promise<SeededMerchant> {
    const psp_id = (under ?? (await psp())).id;
    const created = await portal.tenants.createMerchant(operator, {
      psp_id,
      code: uniqueCode("M"),
      name: "Seeded merchant",
    });
    return { id: created.id, code: created.code, name: created.name, psp_id };
  }

  /** The sandbox QR provider's two configurations with the accounts it keeps in the platform's storage. */
  function providers(): DemoProviders {
    const sandbox = readSandboxSettings(dataDir)!;
    return demoProviders({ ...sandbox, baseUrl: sandbox.baseUrl! });
  }

  /**
   * A store under `merchant` or a new one. One that `sells` is set up as the demo store is: the sandbox's accounts
   * for QR (both configurations, and PayPay's protocol at the sandbox) and known at the gateway before this returns, so its terminals take cash, card and
   * QR at once; `contact_email` is where its mail goes.
   */
  async function store(
    options: { merchant?: SeededMerchant; sells?: boolean; contact_email?: string } = {},
  ): Promise<SeededStore> {
    const owner = options.merchant ?? (await merchant());
    const sandbox = options.sells ? providers() : undefined;
    const created = await portal.tenants.createStore(operator, {
      merchant_id: owner.id,
      code: uniqueCode("S"),
      name: "Seeded store",
      ...(options.contact_email ? { contact_email: options.contact_email } : {}),
      ...(sandbox
        ? {
            provider_credentials: {
              [sandbox.provider.code]: sandbox.provider.credentials,
              [sandbox.polling_provider.code]: sandbox.polling_provider.credentials,
              paypay: sandbox.polling_provider.credentials,
            },
          }
        : {}),
    });
    if (sandbox) await portal.gatewaySync.sync([owner.id]);
    const { id, code, name } = created;
    return { id, code, name, merchant_id: owner.id, psp_id: owner.psp_id, merchant: owner };
  }

  /**
   * A terminal provisioned as a real one is: its own key pair, an activation code, activation in `at`, by `installer`
   * (one installer may activate 30 an hour: a benchmark's hundreds of terminals name several).
   */
  async function device(at: { id: number }, installer: Caller = operator): Promise<SeededDevice> {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const serial_number = uniqueCode("SN");
    const { activation_code } = await portal.provisioning.generateActivationCode(installer, {
      serial_number,
      public_key_jwk: await exportJWK(publicKey),
      model: "A920",
      manufacturer: "PAX",
    });
    const activated = await portal.provisioning.activate(installer, { activation_code, store_id: at.id });
    return {
      id: activated.id,
      client_id: activated.client_id!,
      serial_number,
      private_jwk: await exportJWK(privateKey),
    };
  }

  /** An area of the store's merchant, holding the store. */
  async function area(holding: SeededStore) {
    const created = await portal.areas.createUnchecked(holding.merchant_id, uniqueCode("Area"));
    await portal.areas.assignStoreUnchecked(holding.id, created.id);
    return { id: created.id };
  }

  /**
   * A user of `role` placed at its tier's level of `at` (L3 in `inArea`, else in a new area holding the store), with
   * a password and TOTP (L0 to L4) or a PIN (L5, L6): `logIn` (platform.ts) takes it as it takes a demo user.
   */
  async function user(role: Role, at: SeededStore, inArea?: { id: string }): Promise<DemoUser> {
    const place: Record<Role, () => Promise<object>> = {
      SYSTEM_OP: async () => ({}),
      PSP_ADMIN: async () => ({ psp_id: at.psp_id }),
      MERCHANT_ADMIN: async () => ({ merchant_id: at.merchant_id }),
      AREA_MANAGER: async () => ({ area_id: (inArea ?? (await area(at))).id }),
      STORE_MANAGER: async () => ({ store_id: at.id }),
      STAFF_LEADER: async () => ({ store_id: at.id }),
      STAFF: async () => ({ store_id: at.id }),
    };
    return createTierUser(portal, role, await place[role](), `Seeded ${role.toLowerCase()}`);
  }

  /**
   * A client partner with an API key, granted a merchant with one store at the gateway, as an operator grants one.
   * Ids far above the portal's, which the platform's own partner syncs.
   */
  async function partner(): Promise<SeededPartner> {
    const created = await partners.createPartner(uniqueCode("Partner"));
    const { client_id, secret } = await partners.issueApiKey(created.id);
    const gatewayId = () => 2_000_000_000 + randomInt(100_000_000);
    const store = { store_id: gatewayId(), store_code: uniqueCode("GS") };
    await grantMerchant(payments, created.id, { merchant_id: gatewayId(), stores: [store] });
    return { client_id, secret, store_code: store.store_code };
  }

  /**
   * An API key of the platform's own POS partner, signing `/v1` calls for `serving` (a store that `sells`, else a new
   * one) as the POS does; a key of the test's own, so that rotating or revoking it leaves the POS's alone.
   */
  async function storePartner(serving?: SeededStore): Promise<SeededStorePartner> {
    const { code } = serving ?? (await store({ sells: true }));
    const { clientPartnerId } = (await ensurePlatformKeys(partners)).pos;
    const { client_id, secret, webhook_secret } = await partners.issueApiKey(clientPartnerId);
    return { client_id, secret, webhook_secret, client_partner_id: clientPartnerId, store_code: code };
  }

  return { psp, merchant, store, area, device, user, partner, storePartner, providers };
}
