import { createHash, randomBytes } from "node:crypto";
import { AppError, type Caller, newUlid, requireCaller, roles } from "@pos-cloud/common";
import { importJWK } from "jose";
import { RateLimiterRes } from "rate-limiter-flexible";
import { z } from "zod";
import { parseInput } from "../../validation";
import { type DeviceService, deviceMachine, presentDevice } from "../devices";
import type { TenantService } from "../tenants";
import { activateInput, activationCode, generateInput, issueInput, registerInput } from "./provisioning.inputs";
import type { ProvisioningRepository } from "./provisioning.repository";

export type ProvisioningService = ReturnType<typeof provisioningService>;
type StoreRow = Awaited<ReturnType<TenantService["reachableStore"]>>;
type GenerateInput = z.infer<typeof generateInput>;

const HOUR_MS = 60 * 60 * 1000;
export const ACTIVATION_CODE_LIFETIME_MS = 24 * HOUR_MS;
/** Provisioning is unauthenticated, so it is limited per client address and per serial number. */
export const provisioningLimits = {
  // A store setting up its terminals shares one address (NAT); 60 an hour still stops a flood.
  generatePerIp: { max: 60, windowMs: HOUR_MS },
  generatePerSerial: { max: 5, windowMs: HOUR_MS },
  statusPerIp: { max: 120, windowMs: 60 * 1000 },
  activatePerUser: { max: 30, windowMs: HOUR_MS },
};

// Crockford's base32: no I, L, O, U, so a code read aloud or typed from a screen has no look-alikes.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** 12 characters, 60 bits of entropy, shown as XXXX-XXXX-XXXX. */
function newActivationCode() {
  const plain = [...randomBytes(12)].map((byte) => ALPHABET[byte & 31]).join("");
  return { plain, shown: plain.match(/.{4}/g)!.join("-") };
}

const hashCode = (plain: string) => createHash("sha256").update(plain).digest("hex");

const unknownCode = () =>
  new AppError("not_found", "activation code not found or expired", {
    field: "activation_code",
    constraint: "unknown_or_expired",
  });

/** Fixed windows of `clock`, whose start is part of the key, so a test's clock moves them. */
function provisioningLimiter(codes: ProvisioningRepository, clock: () => Date) {
  const limiters = Object.fromEntries(
    Object.entries(provisioningLimits).map(([name, { max, windowMs }]) => [
      name,
      codes.rateLimiter({ keyPrefix: `provisioning:${name}`, points: max, duration: windowMs / 1000 }),
    ]),
  ) as Record<keyof typeof provisioningLimits, ReturnType<ProvisioningRepository["rateLimiter"]>>;

  return async function limit(name: keyof typeof provisioningLimits, subject: string) {
    const { max, windowMs } = provisioningLimits[name];
    const now = clock().getTime();
    const windowStart = now - (now % windowMs);
    await codes.removeExpiredLimits(new Date());
    try {
      await limiters[name].consume(`${subject}:${windowStart}`);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      throw new AppError("rate_limit_exceeded", `too many requests; try again later`, {
        limit: max,
        window_seconds: windowMs / 1000,
        reset: Math.ceil((windowStart + windowMs) / 1000),
      });
    }
  };
}

interface Provisioning {
  codes: ProvisioningRepository;
  devices: DeviceService;
  tenants: TenantService;
  clock: () => Date;
  limit: ReturnType<typeof provisioningLimiter>;
}

async function requirePublicKey(jwk: Parameters<typeof importJWK>[0]) {
  try {
    await importJWK(jwk, "ES256");
  } catch {
    throw new AppError("invalid_request", "public_key_jwk is not a valid P-256 public key", {
      field: "public_key_jwk",
      constraint: "ec_p256",
    });
  }
}

/** A store takes a new terminal while it is active and under its merchant's terminal limit. */
async function requireOpenStore(devices: DeviceService, store: StoreRow, deviceId?: string) {
  if (store.status !== "active") throw new AppError("invalid_state", "the store is inactive", { field: "store_id" });
  await devices.requireRoom(store.id, store.merchant.terminal_limit_per_store, deviceId);
}

/** What binding to a store writes on a device: its place and its OAuth client id. */
const boundTo = (store: StoreRow, clock: () => Date) => ({
  merchant_id: store.merchant_id,
  store_id: store.id,
  client_id: `cli_${newUlid()}`,
  activated_at: clock(),
});

const newCode = (clock: () => Date) => {
  const code = newActivationCode();
  return {
    ...code,
    hash: hashCode(code.plain),
    expiresAt: new Date(clock().getTime() + ACTIVATION_CODE_LIFETIME_MS),
  };
};

/** The device of this serial, new or provisioned again, waiting for its code to be activated. */
async function pendingDevice(devices: DeviceService, caller: Caller, data: GenerateInput) {
  const existing = await devices.findBySerial(data.serial_number);
  const fields = {
    public_key_jwk: data.public_key_jwk,
    model: data.model,
    manufacturer: data.manufacturer,
    status: "pending_activation",
  };
  if (!existing)
    return devices.create({ serial_number: data.serial_number, ...fields }, (id) =>
      devices.recorded("device.provision", caller, { id, store_id: null }),
    );
  deviceMachine.transition(existing.status, "generateActivationCode");
  const moved = await devices.move(
    existing.id,
    deviceMachine.fromStates("generateActivationCode"),
    fields,
    devices.recorded("device.provision", caller, existing),
  );
  if (!moved) throw new AppError("invalid_state", "the device changed state meanwhile");
  return moved;
}

/** A code the device asks for and shows; staff enter it to bind the device to their store. */
function deviceShownCodes({ codes, devices, tenants, clock, limit }: Provisioning) {
  return {
    /** The device registers its serial and public key and receives a code for staff to enter (24 hours). */
    async generateActivationCode(caller: Caller, input: unknown) {
      const data = parseInput(generateInput, input);
      await limit("generatePerIp", caller.ip ?? "unknown");
      await limit("generatePerSerial", data.serial_number);
      await requirePublicKey(data.public_key_jwk);
      const device = await pendingDevice(devices, caller, data);
      const code = newCode(clock);
      await codes.replaceCode(device.id, code.hash, code.expiresAt);
      return { activation_code: code.shown, expires_at: code.expiresAt };
    },

    /** Staff (L4 or above, reaching the store) bind the device to the store; it gets its OAuth client_id. */
    async activate(caller: Caller, input: unknown) {
      requireCaller(caller);
      const data = parseInput(activateInput, input);
      await limit("activatePerUser", caller.id ?? caller.ip ?? "unknown");
      const store = await tenants.reachableStore(caller, data.store_id, roles.STORE_MANAGER);
      const hash = hashCode(data.activation_code);
      const code = await codes.findCode(hash);
      if (!code?.device_id || code.activated_at || code.expires_at <= clock()) throw unknownCode();
      const device = await devices.find(code.device_id);
      if (!device) throw unknownCode();
      const to = deviceMachine.transition(device.status, "activate");
      if (device.store_id !== null && device.store_id !== store.id) {
        throw new AppError("conflict", "this device was registered for another store", {
          field: "store_id",
          constraint: "registered_store",
        });
      }
      await requireOpenStore(devices, store, device.id);
      if (!(await codes.useCode(hash, clock()))) throw unknownCode();
      const activated = await devices.move(
        device.id,
        deviceMachine.fromStates("activate"),
        { status: to, ...boundTo(store, clock) },
        devices.recorded("device.activate", caller, { id: device.id, store_id: store.id }),
      );
      if (!activated) throw new AppError("invalid_state", "the device changed state meanwhile");
      return presentDevice(activated);
    },

    /** What the waiting device polls: pending until staff activate its code, then its ids. */
    async activationStatus(caller: Caller, activation_code: unknown) {
      const plain = parseInput(z.object({ activation_code: activationCode }), { activation_code }).activation_code;
      await limit("statusPerIp", caller.ip ?? "unknown");
      const code = await codes.findCode(hashCode(plain));
      if (!code || code.expires_at <= clock()) throw unknownCode();
      const device = code.activated_at && code.device_id ? await devices.find(code.device_id) : null;
      if (!device?.client_id) return { status: "pending" };
      return {
        status: "active",
        device_id: device.id,
        client_id: device.client_id,
        merchant_id: device.merchant_id,
        store_id: device.store_id,
      };
    },
  };
}

/** A code staff issue for their store; the terminal still to come enters it and joins the store at once. */
function storeIssuedCodes({ codes, devices, tenants, clock, limit }: Provisioning) {
  return {
    /**
     * Staff (L4 or above, reaching the store) issue a code for a terminal still to come: the terminal registers with
     * it (scanned or typed) and joins the store at once. Shown once; only its hash is kept.
     */
    async issueActivationCode(caller: Caller, input: unknown) {
      requireCaller(caller);
      const data = parseInput(issueInput, input);
      await limit("activatePerUser", caller.id ?? caller.ip ?? "unknown");
      const store = await tenants.reachableStore(caller, data.store_id, roles.STORE_MANAGER);
      await requireOpenStore(devices, store);
      const code = newCode(clock);
      await codes.issueForStore(store.id, code.hash, code.expiresAt);
      return { activation_code: code.shown, expires_at: code.expiresAt };
    },

    /**
     * Unauthenticated, like generateActivationCode: a terminal presents a code its store issued, with its serial and
     * public key, and is bound to that store at once; the answer is the final activation status.
     */
    async registerDevice(caller: Caller, input: unknown) {
      const data = parseInput(registerInput, input);
      await limit("generatePerIp", caller.ip ?? "unknown");
      await limit("generatePerSerial", data.serial_number);
      await requirePublicKey(data.public_key_jwk);
      const hash = hashCode(data.activation_code);
      const code = await codes.findCode(hash);
      if (!code || code.store_id === null || code.activated_at || code.expires_at <= clock()) throw unknownCode();
      const store = await tenants.findStore(code.store_id);
      if (!store) throw unknownCode();
      const existing = await devices.findBySerial(data.serial_number);
      const to = deviceMachine.transition(existing?.status ?? "unprovisioned", "register");
      if (existing && existing.store_id !== null && existing.store_id !== store.id) {
        throw new AppError("conflict", "this device was registered for another store", {
          field: "serial_number",
          constraint: "registered_store",
        });
      }
      await requireOpenStore(devices, store, existing?.id);
      if (!(await codes.useCode(hash, clock()))) throw unknownCode();
      const fields = {
        public_key_jwk: data.public_key_jwk,
        model: data.model,
        manufacturer: data.manufacturer,
        status: to,
        ...boundTo(store, clock),
      };
      const device = existing
        ? await devices.move(
            existing.id,
            deviceMachine.fromStates("register"),
            fields,
            devices.recorded("device.activate", caller, existing),
          )
        : await devices.create({ serial_number: data.serial_number, ...fields }, (id) =>
            devices.recorded("device.activate", caller, { id, store_id: store.id }),
          );
      if (!device) throw new AppError("invalid_state", "the device changed state meanwhile");
      await codes.bindCode(hash, device.id);
      return {
        status: "active" as const,
        device_id: device.id,
        client_id: device.client_id,
        merchant_id: device.merchant_id,
        store_id: device.store_id,
      };
    },
  };
}

export function provisioningService(
  codes: ProvisioningRepository,
  devices: DeviceService,
  tenants: TenantService,
  clock: () => Date,
) {
  const provisioning = { codes, devices, tenants, clock, limit: provisioningLimiter(codes, clock) };
  return { ...deviceShownCodes(provisioning), ...storeIssuedCodes(provisioning) };
}
