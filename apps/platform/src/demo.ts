import { randomBytes, randomInt } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppError, type Caller, type Role, roles } from "@pos-cloud/common";
import type { PaymentsDeps } from "@pos-cloud/payments";
import type { PortalDeps } from "@pos-cloud/portal";
import type { EmbeddedSandbox } from "@pos-cloud/sandbox-provider";
import { exportJWK, generateKeyPair, type JWK } from "jose";

/** One demo user per tier; TOTP is the MFA channel so scripts can compute codes from `totp_secret`. */
export interface DemoUser {
  tier: string;
  role: Role;
  user_id: string;
  login_id: string;
  password?: string;
  pin?: string;
  totp_secret?: string;
}

/** What `DATA_DIR/demo.json` holds: stable keys that people and scripts rely on. */
export interface DemoFile {
  base_url: string;
  api_url: string;
  graphql_url: string;
  graphql_ws_url: string;
  psp: { id: number; code: string };
  merchant: { id: number; code: string };
  store: { id: number; code: string };
  /** An active terminal of the demo store; its private key signs client assertions for device tokens. */
  device: { id: string; client_id: string; serial_number: string; private_jwk: JWK };
  /** The sandbox QR provider that notifies `POST /v1/webhooks/sandbox`, signed with `webhook_secret`. */
  provider: DemoProvider & { webhook_secret: string };
  /** The same sandbox configured for polling: no notifications. */
  polling_provider: DemoProvider;
  /**
   * The demo tenant's own client partner ("Demo partner"), granted the demo merchant, with an unrestricted API key:
   * it signs `/v1` as any partner would, inside its grant. The platform's sync partner is not the demo's.
   */
  partner: { client_id: string; secret: string; client_partner_id: number; webhook_secret: string; about: string };
  area: { id: string; name: string };
  users: DemoUser[];
}

/** What demo.json says of its key, so nobody mistakes it for the portal's sync key or waits for it to renew. */
const DEMO_KEY_ABOUT =
  "An unrestricted API key of \"Demo partner\", a client partner of the demo tenant's own: the demo merchant granted it its stores (GET /api/v1/partners/<client_partner_id>/grants), so it creates, confirms and refunds intents there and nowhere else, like any partner. It is not a key of the platform's sync partner (portal-gateway-sync, whose key the platform keeps and renews by itself and which alone syncs every merchant). It expires 180 days after issue: rotate it with `npm run gw -- POST /v1/api_key/rotate`, which writes the new secret here.";

interface DemoProvider {
  code: string;
  /** The sandbox's API address. */
  base_url: string;
  /** The demo merchant's account at the sandbox: what a store's provider configuration holds. */
  credentials: { merchant_id: string; api_key: string; api_secret: string };
}

export type DemoProviders = Pick<DemoFile, "provider" | "polling_provider">;

type DemoTenant = Omit<DemoFile, "base_url" | "api_url" | "graphql_url" | "graphql_ws_url" | keyof DemoProviders>;

export function demoProviders(sandbox: Pick<EmbeddedSandbox, "baseUrl" | "webhookSecret" | "accounts">): DemoProviders {
  const credentials = ({ merchant_id, api_key, api_secret }: EmbeddedSandbox["accounts"]["webhook"]) => ({
    merchant_id,
    api_key,
    api_secret,
  });
  return {
    provider: {
      code: "sandbox",
      webhook_secret: sandbox.webhookSecret,
      base_url: sandbox.baseUrl,
      credentials: credentials(sandbox.accounts.webhook),
    },
    polling_provider: {
      code: "sandbox-poll",
      base_url: sandbox.baseUrl,
      credentials: credentials(sandbox.accounts.polling),
    },
  };
}

export function demoUrls(baseUrl: string) {
  return {
    base_url: baseUrl,
    api_url: `${baseUrl}/api/v1`,
    graphql_url: `${baseUrl}/graphql`,
    graphql_ws_url: `${baseUrl.replace(/^http/, "ws")}/graphql`,
  };
}

/** The platform itself creates the demo tenant, with a system operator's reach. */
const platformOperator: Caller = { type: "user", id: "platform", role: "SYSTEM_OP", scopes: [] };

/** Start-up settings of the demo: the sandbox's accounts and the client partner the portal syncs for. */
export interface DemoSettings {
  providers: DemoProviders;
  /** The platform's sync partner at this platform's gateway, which must be there before the demo is made. */
  syncPartnerId: number;
}

/** The demo's own client partner, under the demo PSP, granted the whole demo merchant, with an unrestricted key. */
async function createDemoPartner(payments: PaymentsDeps, psp_id: number, merchant_id: number) {
  const partner = await payments.partnerAdmin.create(platformOperator, { name: "Demo partner", psp_id });
  const key = await payments.partnerAdmin.issue(platformOperator, partner.id);
  await payments.grants.grant(platformOperator, partner.id, { merchant_id });
  return {
    client_id: key.client_id,
    secret: key.secret,
    client_partner_id: partner.id,
    webhook_secret: key.webhook_secret,
    about: DEMO_KEY_ABOUT,
  };
}

async function createDemoTenant(
  portal: PortalDeps,
  payments: PaymentsDeps,
  settings: DemoSettings,
): Promise<DemoTenant> {
  // First, so that a sync partner this gateway does not know stops start-up before any tenant exists.
  await payments.partnerAdmin.show(platformOperator, settings.syncPartnerId).catch((error: unknown) => {
    if (!(error instanceof AppError && error.code === "not_found")) throw error;
    throw new Error(
      `the demo needs client partner ${settings.syncPartnerId} at this platform's gateway; with another gateway, set DEMO=off`,
    );
  });
  const psp = await portal.tenants.createPsp(platformOperator, { code: "DEMO-PSP", name: "Demo PSP" });
  const merchant = await portal.tenants.createMerchant(platformOperator, {
    psp_id: psp.id,
    code: "DEMO-MERCHANT",
    name: "Demo Merchant",
    contact_email: "merchant@demo.pos-cloud.localhost",
  });
  const { provider, polling_provider } = settings.providers;
  const store = await portal.tenants.createStore(platformOperator, {
    merchant_id: merchant.id,
    code: "001",
    name: "Demo Store Shibuya",
    // Where the store's mail goes (the card settlement exchange's failures; receipts' Reply-To): the sandbox's.
    contact_email: "shibuya@demo.pos-cloud.localhost",
    // The demo store can take QR payments through both sandbox configurations right away, and through PayPay's
    // protocol at the same sandbox (`paypay` in the default PAYMENT_PROVIDERS) with the polled account.
    provider_credentials: {
      [provider.code]: provider.credentials,
      [polling_provider.code]: polling_provider.credentials,
      paypay: polling_provider.credentials,
    },
  });
  // The gateway learns of the demo through the portal's sync, as of any tenant; waited for, so that the demo store
  // takes payments as soon as start-up is done.
  await portal.gatewaySync.sync([merchant.id]);
  const area = await portal.areas.createUnchecked(merchant.id, "Demo Area Tokyo");
  await portal.areas.assignStoreUnchecked(store.id, area.id);
  const place: Record<Role, object> = {
    SYSTEM_OP: {},
    PSP_ADMIN: { psp_id: psp.id },
    MERCHANT_ADMIN: { merchant_id: merchant.id },
    AREA_MANAGER: { area_id: area.id },
    STORE_MANAGER: { store_id: store.id },
    STAFF_LEADER: { store_id: store.id },
    STAFF: { store_id: store.id },
  };
  const users: DemoUser[] = [];
  for (const role of Object.keys(roles) as Role[]) {
    users.push(await createTierUser(portal, role, place[role], `Demo ${role.toLowerCase().replace("_", " ")}`));
  }
  return {
    psp: { id: psp.id, code: psp.code },
    merchant: { id: merchant.id, code: merchant.code },
    store: { id: store.id, code: store.code },
    device: await createDemoDevice(portal, store.id),
    partner: await createDemoPartner(payments, psp.id, merchant.id),
    area: { id: area.id, name: area.name },
    users,
  };
}

/**
 * A user of `role` at `place` with a fresh password and TOTP (L0 to L4) or PIN (L5, L6), as demo.json lists it: what
 * a script (or a test) needs to log in.
 */
export async function createTierUser(
  portal: Pick<PortalDeps, "users">,
  role: Role,
  place: object,
  name: string,
): Promise<DemoUser> {
  const usesPin = roles[role] > roles.STORE_MANAGER;
  const secret = usesPin
    ? { pin: String(randomInt(1_000_000)).padStart(6, "0") }
    : { password: randomBytes(12).toString("base64url") };
  const user = await portal.users.createUser({
    role,
    name,
    ...place,
    ...secret,
    ...(usesPin ? {} : { mfa_enabled: true, mfa_channel: "totp" }),
  });
  return {
    tier: `L${roles[role]}`,
    role,
    user_id: user.id,
    login_id: user.login_id,
    ...secret,
    ...(user.totp_secret ? { totp_secret: user.totp_secret } : {}),
  };
}

/** Provisions a terminal exactly as a real one is: its own key pair, an activation code, activation by staff. */
async function createDemoDevice(portal: PortalDeps, storeId: number): Promise<DemoFile["device"]> {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const serial_number = "DEMO-TERMINAL-001";
  const { activation_code } = await portal.provisioning.generateActivationCode(platformOperator, {
    serial_number,
    public_key_jwk: await exportJWK(publicKey),
    model: "Demo POS",
    manufacturer: "Demo",
  });
  const device = await portal.provisioning.activate(platformOperator, { activation_code, store_id: storeId });
  return { id: device.id, client_id: device.client_id!, serial_number, private_jwk: await exportJWK(privateKey) };
}

/**
 * On first start with empty storage the demo tenant is created and written to `demo.json`; on later starts only
 * the URLs and the sandbox provider's address are refreshed, since the file holds credentials that exist nowhere
 * else in clear.
 */
export async function ensureDemoTenant(
  dataDir: string,
  baseUrl: string,
  portal: PortalDeps,
  payments: PaymentsDeps,
  settings: DemoSettings,
): Promise<string | undefined> {
  const path = join(dataDir, "demo.json");
  if (existsSync(path)) {
    const current = JSON.parse(readFileSync(path, "utf8")) as DemoFile;
    // A demo.json from before the demo had a partner of its own holds a key of the sync partner: its text stays.
    const own = current.partner && current.partner.client_partner_id !== settings.syncPartnerId;
    const partner = own && { ...current.partner, about: DEMO_KEY_ABOUT };
    const refreshed = { ...current, ...demoUrls(baseUrl), ...settings.providers, ...(partner ? { partner } : {}) };
    writeFileSync(path, `${JSON.stringify(refreshed, null, 2)}\n`, { mode: 0o600 });
    return path;
  }
  if ((await portal.tenants.listPsps(platformOperator)).total_count > 0) return undefined;
  const demo: DemoFile = {
    ...demoUrls(baseUrl),
    ...(await createDemoTenant(portal, payments, settings)),
    ...settings.providers,
  };
  writeFileSync(path, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return path;
}
