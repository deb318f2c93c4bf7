import { readFileSync } from "node:fs";
import { z } from "zod";
import type { ProviderAdapter, ProviderSetting } from "./provider.contract";

const settingSchema = z.strictObject({
  code: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "a lowercase provider code"),
  adapter: z.string().regex(/^[a-z0-9-]+$/, "an adapter folder's name"),
  options: z.record(z.string(), z.unknown()).default({}),
});

/** `PAYMENT_PROVIDERS`: the JSON list itself, or `@<path>` of a file holding it. */
export const providerSettingsSchema = z
  .string()
  .transform((value, context) => {
    try {
      return JSON.parse(value.startsWith("@") ? readFileSync(value.slice(1), "utf8") : value) as unknown;
    } catch (error) {
      context.addIssue({ code: "custom", message: `not a readable JSON list: ${(error as Error).message}` });
      return z.NEVER;
    }
  })
  .pipe(z.array(settingSchema).min(1));

/**
 * Without `PAYMENT_PROVIDERS`: the sandbox in both of its configurations, and PayPay's protocol spoken by the same
 * sandbox, so `npm start` runs every adapter against something real.
 */
export const DEFAULT_PROVIDER_SETTINGS: readonly ProviderSetting[] = [
  { code: "sandbox", adapter: "sandbox", options: { follow: "webhook" } },
  { code: "sandbox-poll", adapter: "sandbox", options: { follow: "polling" } },
  { code: "paypay", adapter: "paypay", options: { baseUrl: "sandbox" } },
];

/**
 * An adapter is the folder of its name under `providers/`, found at run time: adding one touches its folder and the
 * configuration only, and nothing outside `providers/` imports it (`.dependency-cruiser.cjs`, `provider-adapters`).
 */
export async function loadAdapter(name: string): Promise<ProviderAdapter> {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`payment provider adapter "${name}" is not a folder name`);
  const loaded = (await import(/* @vite-ignore */ `./${name}/index.js`).catch((error: unknown) => {
    throw new Error(`no payment provider adapter "${name}" (providers/${name}/index.ts)`, { cause: error });
  })) as { adapter?: ProviderAdapter };
  if (!loaded.adapter) throw new Error(`providers/${name}/index.ts exports no adapter`);
  return loaded.adapter;
}
