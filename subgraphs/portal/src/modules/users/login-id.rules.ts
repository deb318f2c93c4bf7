import { randomInt } from "node:crypto";
import type { Role } from "@pos-cloud/common";

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

const random = (length: number) => Array.from({ length }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join("");

/** The merchant part of L3 and L4 login ids: the merchant's integer id, zero-padded to 8 digits. */
export const merchantPart = (merchantId: number) => String(merchantId).padStart(8, "0").slice(-8);

/**
 * The store part of L5 and L6 login ids: the last 3 alphanumerics of the store code, upper-cased, left-padded
 * with 0 (store "001" stays 001, "SHIBUYA-12" becomes "A12").
 */
export const storePart = (storeCode: string) =>
  storeCode
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "")
    .slice(-3)
    .padStart(3, "0");

/** A fresh login id in the spec's format for the role; the caller retries on the rare collision. */
export function generateLoginId(role: Role, place: { merchantId?: number; storeCode?: string }): string {
  const merchant = () => merchantPart(place.merchantId!);
  const store = () => storePart(place.storeCode!);
  switch (role) {
    case "SYSTEM_OP":
      return `SYS-${random(4)}`;
    case "PSP_ADMIN":
      return `PSP-${random(6)}`;
    case "MERCHANT_ADMIN":
      return `MCH-${random(8)}`;
    case "AREA_MANAGER":
      return `ARA-${merchant()}-${random(3)}`;
    case "STORE_MANAGER":
      return `STR-${merchant()}-${random(3)}`;
    case "STAFF_LEADER":
      return `SLR-${store()}-${random(3)}`;
    case "STAFF":
      return `STF-${store()}-${random(3)}`;
  }
}

export const loginIdFormats: Record<Role, RegExp> = {
  SYSTEM_OP: /^SYS-[A-Z0-9]{4}$/,
  PSP_ADMIN: /^PSP-[A-Z0-9]{6}$/,
  MERCHANT_ADMIN: /^MCH-[A-Z0-9]{8}$/,
  AREA_MANAGER: /^ARA-[0-9]{8}-[A-Z0-9]{3}$/,
  STORE_MANAGER: /^STR-[0-9]{8}-[A-Z0-9]{3}$/,
  STAFF_LEADER: /^SLR-[A-Z0-9]{3}-[A-Z0-9]{3}$/,
  STAFF: /^STF-[A-Z0-9]{3}-[A-Z0-9]{3}$/,
};
