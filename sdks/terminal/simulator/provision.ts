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
  store: { id: number };
  device: { client_id: string; private_jwk: PrivateJwk };
  provider: { code: string };
  users: { role: string; login_id: string; password?: string; totp_secret?: string }[];
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

/** The demo store's manager signed in as a person is: password, then the TOTP code of demo.json's secret. */
async function managerToken(baseUrl: string, demo: SimulatorDemo) {
  const manager = demo.users.find((user) => user.role === "STORE_MANAGER");
  if (!manager?.password || !manager.totp_secret) throw new Error("demo.json has no store manager with a password");
  const login = await postJson(baseUrl, "/api/v1/auth/user/login", {
    login_id: manager.login_id,
    password: manager.password,
  });
  const code = await generate({ secret: manager.totp_secret });
  const verified = await postJson(baseUrl, "/api/v1/auth/user/mfa/verify", { user_id: login.user_id, code });
  return verified.access_token as string;
}

/**
 * `count` terminals of the demo store: demo.json's own, then new ones activated with codes its manager issues,
 * each with a key made for it, as a new terminal is installed.
 */
export async function demoStoreTerminals(baseUrl: string, demo: SimulatorDemo, count: number) {
  const client = (clientId: string, privateKey: Parameters<typeof createTerminalClient>[0]["privateKey"]) =>
    createTerminalClient({ baseUrl, clientId, privateKey, WebSocket });
  const terminals: TerminalClient[] = [client(demo.device.client_id, demo.device.private_jwk)];
  if (count === 1) return terminals;
  const token = await managerToken(baseUrl, demo);
  for (let index = 1; index < count; index++) {
    const issued = await postJson(
      baseUrl,
      "/api/v1/device/provision/issueActivationCode",
      { store_id: demo.store.id },
      token,
    );
    const keyPair = await generateDeviceKeyPair();
    const device = await activate({
      baseUrl,
      activationCode: issued.activation_code as string,
      serialNumber: `SIM-${Date.now()}-${index}`,
      model: "Simulator",
      manufacturer: "pos-cloud",
      keyPair,
    });
    terminals.push(client(device.clientId, device.privateKey));
  }
  return terminals;
}
