import { isCalendarDate, printable } from "@pos-cloud/common";
import { z } from "zod";

export const genders = ["male", "female", "other", "prefer_not_to_say"] as const;
export const receiptDeliveries = ["email", "sms", "print", "none"] as const;
export const languages = ["ja", "en"] as const;
export const sortFields = ["name", "last_visit", "total_spent"] as const;

/** Separators people type in phone numbers; they are dropped before the number is checked and stored. */
const phoneSeparators = /[\s\-().]/g;

/**
 * A phone number as stored: E.164 (`+819012345678`). A national number of Japan (`090-1234-5678`, 10 or 11 digits
 * from a leading 0; the platform's stores are in Japan) is written in E.164 too, so one person has one number.
 */
const phone = z
  .string()
  .max(32)
  .transform((value) => value.trim().replace(phoneSeparators, ""))
  .pipe(
    z
      .string()
      .regex(
        /^(\+[1-9]\d{7,14}|0\d{9,10})$/,
        "phone must be an E.164 number (+819012345678) or a Japanese number with its leading 0",
      ),
  )
  .transform((compact) => (compact.startsWith("0") ? `+81${compact.slice(1)}` : compact));

/** E-mail addresses are kept in lowercase: one address, whatever case it was typed in, is one customer. */
const email = z.string().trim().toLowerCase().pipe(z.email("email must be an e-mail address").max(254));

/** An ISO 8601 calendar date (YYYY-MM-DD) that exists, from 1900 to today. */
const dateOfBirth = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "date_of_birth must be an ISO 8601 date, YYYY-MM-DD")
  .refine(isCalendarDate, {
    message: "date_of_birth is not a date of the calendar",
  })
  .refine((value) => value >= "1900-01-01" && new Date(`${value}T00:00:00Z`).getTime() <= Date.now(), {
    message: "date_of_birth must be between 1900-01-01 and today",
  });

/** Free text of a customer: it may be printed (a receipt or a delivery slip addressed to them). */
const text = (max: number) => printable(z.string().trim().min(1).max(max));

const address = z.strictObject({
  postal_code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 -]{1,11}$/, "postal_code is 2 to 12 letters, digits, spaces or '-'")
    .nullish(),
  prefecture: text(50).nullish(),
  city: text(100).nullish(),
  street: text(200).nullish(),
});

const preferences = z.strictObject({
  receipt_delivery: z.enum(receiptDeliveries).nullish(),
  language: z.enum(languages).nullish(),
});

/** Profile fields: null (or absent) leaves a field empty on create and clears it on update. */
const profile = {
  name: text(100).nullish(),
  name_kana: text(100).nullish(),
  phone: phone.nullish(),
  email: email.nullish(),
  date_of_birth: dateOfBirth.nullish(),
  gender: z.enum(genders).nullish(),
  address: address.nullish(),
  preferences: preferences.nullish(),
};

/** POST /customers. The merchant is the caller's own; a system operator or PSP admin names it. */
export const customerCreate = z.strictObject({
  merchant_id: z.number().int().positive().nullish(),
  ...profile,
  is_active: z.boolean().nullish(),
});

/** PATCH /customers/{id}: only the fields given change; address and preferences change field by field. */
export const customerUpdate = z
  .strictObject({ ...profile, is_active: z.boolean().optional() })
  .refine((patch) => Object.keys(patch).length > 0, { message: "give at least one field to change" });

/** GET /customers: at least one of phone, email, customer_number and name (checked by the service). */
export const customerSearch = z.strictObject({
  merchant_id: z.number().int().positive().optional(),
  phone: z.string().trim().min(1).max(32).optional(),
  email: z.string().trim().min(1).max(254).optional(),
  customer_number: z.string().trim().min(1).max(20).optional(),
  name: z.string().trim().min(1).max(100).optional(),
  is_active: z.boolean().optional(),
  sort: z.enum(sortFields).optional(),
  order: z.enum(["asc", "desc"]).optional(),
});

export type CustomerCreate = z.output<typeof customerCreate>;
export type CustomerUpdate = z.output<typeof customerUpdate>;
export type CustomerSearch = z.output<typeof customerSearch>;
export type Address = z.output<typeof address>;
export type Preferences = z.output<typeof preferences>;
