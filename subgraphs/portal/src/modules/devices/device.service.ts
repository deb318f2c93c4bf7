import {
  AppError,
  type Caller,
  forbidden,
  loaderPerSelection,
  mapPage,
  notFound,
  requireCaller,
  requireTier,
  roles,
  type TenantPath,
  type Tier,
} from "@pos-cloud/common";
import DataLoader from "dataloader";
import type { AuditEvent, AuditSink } from "../../audit-sink";
import { referenceLoader } from "../../reference-loader";
import { type PageArgs, parseInput, parsePage } from "../../validation";
import type { TenantService } from "../tenants";
import { deviceFilter, deviceRegister, deviceTelemetry, deviceTransfer, deviceUpdate } from "./device.inputs";
import { type DeviceEvent, deviceMachine, deviceStatuses } from "./device.machine";
import type { DeviceListRow, DeviceRepository, DeviceRow } from "./device.repository";

export type DeviceService = ReturnType<typeof deviceService>;

/** Where a device sits; a device not yet bound to a store sits above every tenant (L0 only). */
export function devicePath(device: DeviceRow): TenantPath | undefined {
  if (device.store_id === null || device.merchant_id === null || !device.store) return undefined;
  return {
    pspId: device.store.merchant.psp_id,
    merchantId: device.merchant_id,
    storeId: device.store_id,
    areaId: device.store.area_id,
  };
}

/** The device as clients see it: its key's public half and its place, without the join used for scope. */
export function presentDevice(device: DeviceRow) {
  const { store: _store, ...rest } = device;
  return rest;
}

/** Terminal management is for L0 to L4 within their scope; every tier (and the device itself) may read. */
const MANAGE_TIER = roles.STORE_MANAGER;

/** A device reads only itself; a device not bound to a store sits above every tenant (L0 only). */
function reachable(caller: Caller, device: DeviceRow, maxTier: Tier) {
  if (caller.type === "device") {
    if (caller.id !== device.id) throw forbidden();
    return;
  }
  requireTier(caller, devicePath(device) ? maxTier : roles.SYSTEM_OP, devicePath(device));
}

function canRead(caller: Caller, device: DeviceRow) {
  try {
    reachable(caller, device, roles.STAFF);
    return true;
  } catch {
    return false;
  }
}

async function loadDevice(devices: DeviceRepository, caller: Caller, id: string, maxTier: Tier) {
  requireCaller(caller);
  const device = await devices.find(id);
  if (!device) throw notFound("device");
  reachable(caller, device, maxTier);
  return device;
}

/**
 * Device rows without a caller check, for the modules that establish which device calls themselves: provisioning
 * (its serial, then its activation code) and the token endpoint (its signed client assertion); and what every write
 * of a device checks and records.
 */
function deviceRows(devices: DeviceRepository, audit: AuditSink) {
  /** The merchant's terminal limit per store, counted over devices that are not decommissioned. */
  async function requireRoom(storeId: number, limit: number | null | undefined, exceptId?: string) {
    if (limit === null || limit === undefined) return;
    if ((await devices.countInStore(storeId, exceptId)) >= limit) {
      throw new AppError("conflict", `the store already has its limit of ${limit} terminals`, {
        field: "store_id",
        constraint: "terminal_limit",
      });
    }
  }

  /** The audit record of a change to a device, written in the change's transaction. */
  const recorded = (event: AuditEvent["event"], caller: Caller, device: { id: string; store_id: number | null }) =>
    audit.step({
      event,
      caller,
      success: true,
      target: { type: "device", id: device.id },
      place: { store_id: device.store_id },
      metadata: {},
    });

  return {
    requireRoom,
    recorded,
    find: devices.find,
    findBySerial: devices.findBySerial,
    findByClientId: devices.findByClientId,
    create: devices.create,
    /** Writes only if the device is still in one of `from`; null when another request moved it first. */
    move: devices.move,
  };
}

type DeviceRows = ReturnType<typeof deviceRows>;

/** What a caller may read of devices: one, a page, or the devices of the stores a request reads. */
function deviceReads(devices: DeviceRepository, tenants: TenantService) {
  return {
    async list(caller: Caller, filter: { store_id?: number; status?: string }, page: PageArgs = {}) {
      if (!deviceFilter.shape.status.safeParse(filter.status).success) {
        throw new AppError("invalid_request", `status must be one of ${deviceStatuses.join(", ")}`, {
          field: "status",
          constraint: "enum",
        });
      }
      return mapPage(await devices.list(caller, filter, parsePage(page)), presentDevice);
    },
    async listOfStore(caller: Caller, storeId: number, page: PageArgs = {}) {
      await tenants.reachableStore(caller, storeId);
      return mapPage(await devices.list(caller, { store_id: storeId }, parsePage(page)), presentDevice);
    },
    get: async (caller: Caller, id: string) => presentDevice(await loadDevice(devices, caller, id, roles.STAFF)),

    /** Of these devices, those the caller may read. */
    async visible(caller: Caller, ids: string[]) {
      requireCaller(caller);
      const rows = await devices.byIds(ids);
      return rows.filter((device) => canRead(caller, device)).map(presentDevice);
    },

    /** Device entity references of one request: one statement, each checked as `get` checks it. */
    references: (caller: Caller) =>
      referenceLoader(caller, "device", devices.byIds, (device) => {
        reachable(caller, device, roles.STAFF);
        return presentDevice(device);
      }),

    /** Per-request batching of `stores { devices }`, reading the columns of the Device fields asked. */
    loader: (caller: Caller) =>
      loaderPerSelection(
        (fields) =>
          new DataLoader(async (storeIds: readonly number[]) => {
            const byStore = new Map(storeIds.map((id) => [id, [] as DeviceListRow[]]));
            for (const row of await devices.ofStores(caller, storeIds, fields)) byStore.get(row.store_id)?.push(row);
            return storeIds.map((id) => byStore.get(id) ?? []);
          }),
      ),
  };
}

/** Registering a terminal ahead of provisioning, changing it, and moving it to another store. */
function deviceManagement(devices: DeviceRepository, tenants: TenantService, audit: AuditSink, rows: DeviceRows) {
  return {
    /**
     * A portal user registers a terminal ahead of provisioning: serial, model and store are recorded and the
     * device waits Unprovisioned; its own activation code must then be activated for that store.
     */
    async register(caller: Caller, input: unknown) {
      requireCaller(caller);
      const data = parseInput(deviceRegister, input);
      const store = await tenants.reachableStore(caller, data.store_id, MANAGE_TIER);
      if (store.status !== "active")
        throw new AppError("invalid_state", "the store is inactive", { field: "store_id" });
      if (await devices.findBySerial(data.serial_number)) {
        throw new AppError("conflict", "a device with this serial number exists", {
          field: "serial_number",
          constraint: "unique",
        });
      }
      await rows.requireRoom(store.id, store.merchant.terminal_limit_per_store);
      const device = await devices.create(
        { ...data, config: data.config ?? {}, merchant_id: store.merchant_id, status: "unprovisioned" },
        (id) => rows.recorded("device.register", caller, { id, store_id: store.id }),
      );
      return presentDevice(device);
    },

    /** Humans change attributes and configuration; the device itself reports only battery, paper and position. */
    async update(caller: Caller, id: string, input: unknown) {
      requireCaller(caller);
      const data = parseInput(caller.type === "device" ? deviceTelemetry : deviceUpdate, input);
      const device = await loadDevice(devices, caller, id, MANAGE_TIER);
      if (device.status === "decommissioned") throw new AppError("invalid_state", "the device is decommissioned");
      const config = "config" in data && data.config ? { ...(device.config as object), ...data.config } : undefined;
      return presentDevice(await devices.update(id, { ...data, config }));
    },

    /** Moves an active or suspended device to another store of the same merchant; the caller must reach both. */
    async transfer(caller: Caller, id: string, input: unknown) {
      requireCaller(caller);
      const { store_id } = parseInput(deviceTransfer, input);
      const device = await loadDevice(devices, caller, id, MANAGE_TIER);
      if (device.status !== "active" && device.status !== "suspended") {
        throw new AppError("invalid_state", `a ${device.status} device cannot be transferred`, {
          status: device.status,
        });
      }
      const target = await tenants.reachableStore(caller, store_id, MANAGE_TIER);
      if (target.merchant_id !== device.merchant_id) {
        throw new AppError("invalid_request", "a device moves only between stores of its merchant", {
          field: "store_id",
          constraint: "same_merchant",
        });
      }
      if (target.status !== "active")
        throw new AppError("invalid_state", "the store is inactive", { field: "store_id" });
      await rows.requireRoom(store_id, device.store?.merchant.terminal_limit_per_store, id);
      const moved = await devices.update(
        id,
        { store_id },
        audit.step({
          event: "device.transfer",
          caller,
          success: true,
          target: { type: "device", id },
          place: { store_id },
          metadata: { from_store_id: device.store_id },
        }),
      );
      return presentDevice(moved);
    },
  };
}

/** Suspending, resuming and decommissioning, as the device machine allows. */
function deviceLifecycle(devices: DeviceRepository, rows: DeviceRows) {
  async function moveTo(caller: Caller, id: string, move: DeviceEvent, event: AuditEvent["event"]) {
    const device = await loadDevice(devices, caller, id, MANAGE_TIER);
    const to = deviceMachine.transition(device.status, move);
    const from = deviceMachine.fromStates(move);
    const moved = await devices.move(id, from, { status: to }, rows.recorded(event, caller, device));
    if (!moved) throw new AppError("invalid_state", "the device changed state meanwhile; read it again");
    return moved;
  }

  return {
    async suspend(caller: Caller, id: string) {
      return presentDevice(await moveTo(caller, id, "suspend", "device.suspend"));
    },
    async resume(caller: Caller, id: string) {
      return presentDevice(await moveTo(caller, id, "resume", "device.resume"));
    },
    async decommission(caller: Caller, id: string) {
      return presentDevice(await moveTo(caller, id, "decommission", "device.decommission"));
    },
  };
}

export function deviceService(devices: DeviceRepository, tenants: TenantService, audit: AuditSink) {
  const rows = deviceRows(devices, audit);
  return {
    ...rows,
    ...deviceReads(devices, tenants),
    ...deviceManagement(devices, tenants, audit, rows),
    ...deviceLifecycle(devices, rows),
  };
}
