import { z } from "zod";

/** The QR methods a confirm can choose, with the provider's QR mode of each. */
export const qrModeOfMethod = { qr_mpm: "mpm", qr_cpm: "cpm" } as const;
const qrMethods = Object.keys(qrModeOfMethod) as [keyof typeof qrModeOfMethod, ...(keyof typeof qrModeOfMethod)[]];

/*
 * Each validator's issue names the broken rule: the service answers it with the field, constraint and sentence it
 * always has, after the token and the intent's state were checked (a wrong token is told before a wrong body).
 */

/** A QR method; the intent must also allow it, which the service checks against the intent. */
export const confirmMethod = z.enum(qrMethods, { error: "enum" });

/** A provider's name; which providers exist is the directory's answer (404 for an unknown one). */
export const confirmProvider = z.string({ error: "required" }).min(1, { error: "required" });

/**
 * POST /v1/payment_intents/{id}/confirm: the method (the intent's own when it has one) and the provider. The payment
 * token is the route's credential (a bearer, the query or the body), not a rule of the body.
 */
export const confirmBody = z.object({
  payment_method_type: confirmMethod.nullish(),
  provider: confirmProvider,
});
