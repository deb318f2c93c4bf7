import { type DeviceKey, type DeviceKeyPair, generateDeviceKeyPair, publicJwk } from "./assertion";
import { TerminalApiError } from "./errors";
import type { paths } from "./openapi.generated";

type ActivationStatus =
  paths["/api/v1/device/provision/register"]["post"]["responses"][201]["content"]["application/json"];

export interface ActivateOptions {
  baseUrl: string;
  /** The code staff issued for this store (with or without its dashes). */
  activationCode: string;
  serialNumber: string;
  model: string;
  manufacturer: string;
  /** The device's P-256 key pair; a fresh non-extractable one when left out. Keep its private half: it signs. */
  keyPair?: DeviceKeyPair;
  fetch?: typeof fetch;
}

/** What a provisioned terminal keeps: its ids and the private key that signs its client assertions. */
export interface DeviceCredentials {
  deviceId: string;
  clientId: string;
  merchantId: number;
  storeId: number;
  privateKey: DeviceKey;
}

/** The device's half of a registration: what it is, and the public half of its key. */
async function deviceBody(options: Omit<ActivateOptions, "activationCode">, keyPair: DeviceKeyPair) {
  return {
    serial_number: options.serialNumber,
    model: options.model,
    manufacturer: options.manufacturer,
    public_key_jwk: await publicJwk(keyPair.publicKey),
  };
}

/** The credentials of an activation status that says `active`; a refusal naming the state otherwise. */
function credentialsOf(status: ActivationStatus, privateKey: DeviceKey): DeviceCredentials {
  if (status.status !== "active" || !status.device_id || !status.client_id || !status.merchant_id || !status.store_id) {
    throw new TerminalApiError(409, "invalid_state", `the device is ${status.status}, not active`);
  }
  return {
    deviceId: status.device_id,
    clientId: status.client_id,
    merchantId: status.merchant_id,
    storeId: status.store_id,
    privateKey,
  };
}

/** A provisioning POST of a terminal not yet provisioned (no token): its 201 answer, or the refusal as an error. */
async function provision(options: Omit<ActivateOptions, "activationCode">, path: string, body: object) {
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);
  const response = await send(`${options.baseUrl}/api/v1/device/provision/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw await TerminalApiError.from(response);
  return response.json();
}

/**
 * Registers the terminal with an activation code its store issued (`POST /api/v1/device/provision/register`): the
 * platform binds it to that store at once and answers its ids. Only the public key leaves the device.
 */
export async function activate(options: ActivateOptions): Promise<DeviceCredentials> {
  const keyPair = options.keyPair ?? (await generateDeviceKeyPair());
  const status = await provision(options, "register", {
    activation_code: options.activationCode,
    ...(await deviceBody(options, keyPair)),
  });
  return credentialsOf(status as ActivationStatus, keyPair.privateKey);
}

export interface ActivateByCodeOptions extends Omit<ActivateOptions, "activationCode"> {
  /** Shows the code the platform gave the terminal; staff approve it for their store (the console's terminals page). */
  onCode: (code: { activationCode: string; expiresAt: string }) => void;
  /** Milliseconds between two reads of the activation's status; 3000 by default. */
  pollIntervalMs?: number;
  /** Stops waiting for the approval (the promise then rejects with the signal's reason). */
  signal?: AbortSignal;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/**
 * The other way in: the terminal asks for a code (`POST /api/v1/device/provision/generateActivationCode`), shows it,
 * and reads its status (`GET /api/v1/device/provision/activationStatus`) until a person of the store approves it. A
 * read that gets no answer is tried again at the next interval; a refusal (the code expired or unknown) ends it.
 */
export async function activateByCode(options: ActivateByCodeOptions): Promise<DeviceCredentials> {
  const keyPair = options.keyPair ?? (await generateDeviceKeyPair());
  const send = options.fetch ?? globalThis.fetch.bind(globalThis);
  const code = (await provision(options, "generateActivationCode", await deviceBody(options, keyPair))) as {
    activation_code: string;
    expires_at: string;
  };
  options.onCode({ activationCode: code.activation_code, expiresAt: code.expires_at });
  const statusUrl = `${options.baseUrl}/api/v1/device/provision/activationStatus?activation_code=${encodeURIComponent(code.activation_code)}`;
  for (;;) {
    options.signal?.throwIfAborted();
    const read = await send(statusUrl, { signal: options.signal }).catch((error: unknown) => {
      if (options.signal?.aborted) throw error;
      return undefined;
    });
    if (read && read.status !== 200) throw await TerminalApiError.from(read);
    const status = read && ((await read.json()) as ActivationStatus);
    if (status && status.status !== "pending") return credentialsOf(status, keyPair.privateKey);
    await pause(options.pollIntervalMs ?? 3000, options.signal);
  }
}
