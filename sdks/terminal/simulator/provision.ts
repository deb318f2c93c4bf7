import { createPartnerClient, PartnerApiError } from "@pos-cloud/partner-sdk";
import {
  activate,
  createTerminalClient,
  generateDeviceKeyPair,
  type PrivateJwk,
  type TerminalClient,
} from "@pos-cloud/terminal-sdk";
import { generate } from "otplib";
import WebSocket from "ws";

/** What the simulator reads of demo.json (`apps/platform/src/demo.ts`, `DemoFile`). */
export interface SimulatorDemo {
  base_url: string;
  merchant: { id: number };
  store: { id: number };
  device: { client_id: string; private_jwk: PrivateJwk };
  provider: { code: string; credentials: Record<string, string> };
  partner: { client_id: string; secret: string };
  users: { role: string; login_id: string; password?: string; totp_secret?: string }[];
}

/** A store the simulator sells in: a staff code for its bills, and its terminals. */
export interface SimulatedStore {
  id: number;
  staffCode: string;
  terminals: TerminalClient[];
}

async function postJson(baseUrl: string, path: string, body: unknown, token?: string) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** A demo user signed in as a person is: password, then the TOTP code of demo.json's secret. */
async function signIn(baseUrl: string, demo: SimulatorDemo, role: "STORE_MANAGER" | "MERCHANT_ADMIN") {
  const user = demo.users.find((each) => each.role === role);
  if (!user?.password || !user.totp_secret) throw new Error(`demo.json has no ${role} with a password`);
  const login = await postJson(baseUrl, "/api/v1/auth/user/login", {
    login_id: user.login_id,
    password: user.password,
  });
  const code = await generate({ secret: user.totp_secret });
  const verified = await postJson(baseUrl, "/api/v1/auth/user/mfa/verify", { user_id: login.user_id, code });
  return verified.access_token as string;
}

const terminalClient = (
  baseUrl: string,
  clientId: string,
  privateKey: Parameters<typeof createTerminalClient>[0]["privateKey"],
) => createTerminalClient({ baseUrl, clientId, privateKey, WebSocket });

/** `count` new terminals of a store, activated with codes `token`'s holder issues, each with a key made for it. */
async function newTerminals(baseUrl: string, storeId: number, token: string, count: number) {
  const terminals: TerminalClient[] = [];
  for (let index = 0; index < count; index++) {
    const issued = await postJson(
      baseUrl,
      "/api/v1/device/provision/issueActivationCode",
      { store_id: storeId },
      token,
    );
    const device = await activate({
      baseUrl,
      activationCode: issued.activation_code as string,
      serialNumber: `SIM-${storeId}-${Date.now()}-${index}`,
      model: "Simulator",
      manufacturer: "pos-cloud",
      keyPair: await generateDeviceKeyPair(),
    });
    terminals.push(terminalClient(baseUrl, device.clientId, device.privateKey));
  }
  return terminals;
}

/**
 * Waits until the gateway takes payments for a new store, as an operator checks: the portal syncs a new store to the
 * gateway by itself, and demo.json's partner (granted the whole demo merchant) creates an intent there, then
 * cancels it. 30 s at most.
 */
async function untilGatewayKnows(baseUrl: string, demo: SimulatorDemo, storeCode: string) {
  const partner = createPartnerClient({ baseUrl, clientId: demo.partner.client_id, secret: demo.partner.secret });
  const body = {
    amount: 1,
    currency: "JPY",
    payment_method_types: ["qr_mpm" as const],
    merchant_ref_id: `simulator-probe-${storeCode}`,
    merchant_store_id: storeCode,
  };
  for (const deadline = Date.now() + 30_000; ; ) {
    try {
      const { data } = await partner.POST("/v1/payment_intents", { body });
      const { id, payment_token } = data!;
      await partner.POST("/v1/payment_intents/{id}/cancel", {
        params: { path: { id } },
        body: { payment_token: payment_token?.token },
      });
      return;
    } catch (error) {
      if (!(error instanceof PartnerApiError) || error.status !== 400 || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** A new store of the demo merchant, made by its admin as an operator would, with a staff member and terminals. */
async function newStore(baseUrl: string, demo: SimulatorDemo, admin: string, number: number, terminals: number) {
  const code = `SIM-${Date.now().toString(36).toUpperCase()}-${number}`;
  const store = await postJson(
    baseUrl,
    "/api/v1/stores",
    {
      merchant_id: demo.merchant.id,
      code,
      name: `Simulated store ${number}`,
      provider_credentials: { [demo.provider.code]: demo.provider.credentials },
    },
    admin,
  );
  const id = store.id as number;
  const pin = String(100_000 + Math.floor(Math.random() * 900_000));
  const staff = await postJson(
    baseUrl,
    "/api/v1/users",
    { role: "STAFF", name: `Simulated staff ${number}`, pin, store_id: id },
    admin,
  );
  const made = {
    id,
    staffCode: staff.login_id as string,
    terminals: await newTerminals(baseUrl, id, admin, terminals),
  };
  await untilGatewayKnows(baseUrl, demo, code);
  return made;
}

/**
 * The stores the simulator sells in, `terminals` terminals each: the demo store (demo.json's terminal, then new ones
 * its manager activates), then `stores - 1` new stores of the demo merchant that its admin provisions.
 */
export async function simulatedStores(baseUrl: string, demo: SimulatorDemo, stores: number, terminals: number) {
  const staff = demo.users.find((user) => user.role === "STAFF");
  if (!staff) throw new Error("demo.json has no STAFF user");
  const own = [terminalClient(baseUrl, demo.device.client_id, demo.device.private_jwk)];
  if (terminals > 1)
    own.push(
      ...(await newTerminals(baseUrl, demo.store.id, await signIn(baseUrl, demo, "STORE_MANAGER"), terminals - 1)),
    );
  const all: SimulatedStore[] = [{ id: demo.store.id, staffCode: staff.login_id, terminals: own }];
  if (stores === 1) return all;
  const admin = await signIn(baseUrl, demo, "MERCHANT_ADMIN");
  for (let number = 2; number <= stores; number++) all.push(await newStore(baseUrl, demo, admin, number, terminals));
  return all;
}
