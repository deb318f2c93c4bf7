import { AppError, invalidField } from "@pos-cloud/common";
import type { PaymentProvider } from "./provider";
import { providerRegistry } from "./provider-registry";

export interface ProviderSetup {
  providers: readonly PaymentProvider[];
  /** Each provider's webhook secret by code (one per provider, as the spec says). */
  webhookSecrets: Record<string, string>;
}

export type ProviderDirectory = ReturnType<typeof providerDirectory>;

/**
 * The providers the gateway talks to. They are attached after the subgraph opens, because the platform learns the
 * sandbox's address and its own (the notify URL) only once their listeners are up.
 */
export function providerDirectory() {
  let registry = providerRegistry([]);
  let secrets = new Map<string, string>();
  return {
    attach(setup: ProviderSetup) {
      registry = providerRegistry(setup.providers);
      secrets = new Map(Object.entries(setup.webhookSecrets).map(([code, secret]) => [code.toLowerCase(), secret]));
    },
    /** An unknown code is the caller's `invalid_request` on field `provider`. */
    get: (code: string) => registry.get(code),
    /** The provider and its secret for an inbound webhook path; an unknown provider has no webhook here. */
    forWebhook(code: string): { provider: PaymentProvider; secret: string } {
      const secret = secrets.get(code.toLowerCase());
      if (!registry.has(code) || !secret) throw new AppError("not_found", `no webhook for provider ${code}`);
      return { provider: registry.get(code), secret };
    },
    pollingCodes: () => registry.codes().filter((code) => registry.get(code).delivery === "polling"),
  };
}

export const unknownProvider = (code: string) =>
  invalidField("provider", "active_configuration", `the store has no active ${code} configuration`);
