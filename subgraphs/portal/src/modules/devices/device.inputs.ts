import { z } from "zod";
import { latitude, longitude, paymentMethod, printer, receiptDelivery } from "../../validation";
import { deviceStatuses } from "./device.machine";

export const serialNumber = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{2,63}$/, "3 to 64 letters, digits, . _ -");
const label = z.string().trim().min(1).max(100);

export const deviceConfig = z.strictObject({
  printer: printer.optional(),
  enabled_payment_methods: z.array(paymentMethod).max(10).optional(),
  receipt_delivery: z.array(receiptDelivery).max(4).optional(),
  app_version_policy: z
    .strictObject({
      auto_update: z.boolean().optional(),
      channel: z.enum(["stable", "beta"]).optional(),
      pinned_version_code: z.number().int().positive().optional(),
    })
    .optional(),
  network: z
    .strictObject({
      wifi_ssid: z.string().max(32).optional(),
      proxy_url: z.url().max(2000).optional(),
      dns: z.array(z.ipv4().or(z.ipv6())).max(4).optional(),
    })
    .optional(),
});

/** What the device itself reports. */
const telemetry = {
  battery_level: z.number().int().min(0).max(100).optional(),
  paper_status: z.enum(["OK", "LOW", "EMPTY"]).optional(),
  latitude: latitude.optional(),
  longitude: longitude.optional(),
};

export const deviceRegister = z.strictObject({
  serial_number: serialNumber,
  model: label,
  manufacturer: label,
  store_id: z.number().int().positive(),
  config: deviceConfig.optional(),
});

export const deviceUpdate = z.strictObject({
  model: label.optional(),
  manufacturer: label.optional(),
  config: deviceConfig.optional(),
  ...telemetry,
});
export const deviceTelemetry = z.strictObject(telemetry);

export const deviceTransfer = z.strictObject({ store_id: z.number().int().positive() });

/**
 * The terminals list's filters (GET /api/v1/terminals) beyond GraphQL's types: the status, which GraphQL's
 * `DeviceStatus` holds too, checked again for the service's in-process callers. The store is GraphQL's `Int` alone.
 */
export const deviceFilter = z.object({ status: z.enum(deviceStatuses).optional() });
