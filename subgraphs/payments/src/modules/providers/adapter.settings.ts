import { z } from "zod";
import { DEFAULT_NOTIFICATION_MAX_AGE_SECONDS, type ProviderContext, type ProviderSetting } from "./provider.contract";

/** The options every adapter takes, whatever its protocol; an adapter extends this with its own. */
export const commonAdapterOptions = z.strictObject({
  follow: z.enum(["webhook", "polling", "both"]),
  pollIntervalMs: z.number().int().min(100).max(60_000).default(5_000),
  timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  notificationMaxAgeSeconds: z.number().int().positive().default(DEFAULT_NOTIFICATION_MAX_AGE_SECONDS),
  /** The API's address; `sandbox` is the platform's own sandbox provider (`npm start`, tests). */
  baseUrl: z.string().min(1).optional(),
  /** The secret notifications are signed with; the sandbox's own for `baseUrl: "sandbox"`. */
  webhookSecret: z.string().min(16).optional(),
});

/** An adapter's options checked once at start: a wrong entry stops the process with what is wrong. */
export function parseAdapterOptions<T extends z.ZodType>(schema: T, setting: Required<ProviderSetting>): z.infer<T> {
  const parsed = schema.safeParse(setting.options);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "options"}: ${issue.message}`);
  throw new Error(`payment provider ${setting.code} (${setting.adapter}): ${problems.join("; ")}`);
}

/** `baseUrl: "sandbox"` (or none) is the sandbox this platform runs; anything else is the provider's own host. */
export function apiAddress(setting: Required<ProviderSetting>, baseUrl: string | undefined, context: ProviderContext) {
  if (baseUrl !== undefined && baseUrl !== "sandbox") return { baseUrl, webhookSecret: undefined };
  if (!context.sandbox) throw new Error(`payment provider ${setting.code}: no sandbox runs here; set its baseUrl`);
  return context.sandbox;
}

/** Where the provider posts its notifications for configuration `code`. */
export const notifyUrl = (context: ProviderContext, code: string) => `${context.gatewayUrl}/v1/webhooks/${code}`;
