import { AppError, invalidField } from "@pos-cloud/common";
import type { BuiltProvider, PaymentProvider, ProviderContext, ProviderSetting } from "./provider.contract";
import { followsByPolling } from "./provider.contract";
import { DEFAULT_PROVIDER_SETTINGS, loadAdapter } from "./provider.settings";
import { providerRegistry } from "./provider-registry.service";

export interface ProviderSetup {
  providers: readonly PaymentProvider[];
  /** Each provider's webhook secret by code (one per provider, as the spec says). */
  webhookSecrets: Record<string, string>;
}

export type ProviderDirectory = ReturnType<typeof providerDirectory>;

/** The configured list, each entry built by its adapter folder: what `configure` attaches. */
export async function buildProviders(settings: readonly ProviderSetting[], context: ProviderContext) {
  const built: BuiltProvider[] = [];
  for (const setting of settings) {
    const adapter = await loadAdapter(setting.adapter);
    built.push(adapter.build({ options: {}, ...setting }, context));
  }
  return {
    providers: built.map((each) => each.provider),
    webhookSecrets: Object.fromEntries(
      built.flatMap(({ provider, webhookSecret }) => (webhookSecret ? [[provider.name, webhookSecret]] : [])),
    ),
  } satisfies ProviderSetup;
}

/**
 * The providers the gateway talks to. They are attached after the subgraph opens, because the platform learns the
 * sandbox's address and its own (the notify URL) only once their listeners are up.
 */
export function providerDirectory() {
  let registry = providerRegistry([]);
  let secrets = new Map<string, string>();
  const attach = (setup: ProviderSetup) => {
    registry = providerRegistry(setup.providers);
    secrets = new Map(Object.entries(setup.webhookSecrets).map(([code, secret]) => [code.toLowerCase(), secret]));
  };
  return {
    attach,
    /**
     * Builds the configured providers (`PAYMENT_PROVIDERS`) and attaches them; unset, the defaults when a sandbox
     * runs here and none otherwise.
     */
    async configure(settings: readonly ProviderSetting[] | undefined, context: ProviderContext) {
      const chosen = settings ?? (context.sandbox ? DEFAULT_PROVIDER_SETTINGS : []);
      attach(await buildProviders(chosen, context));
    },
    /** An unknown code is the caller's `invalid_request` on field `provider`. */
    get: (code: string) => registry.get(code),
    /**
     * The provider and its secret for an inbound webhook path (no secret: its notifications only prompt a read); an
     * unknown provider has no webhook here.
     */
    forWebhook(code: string): { provider: PaymentProvider; secret?: string } {
      const secret = secrets.get(code.toLowerCase());
      const provider = registry.has(code) ? registry.get(code) : undefined;
      if (provider?.prompts) return { provider };
      if (!provider?.notifications || !secret) throw new AppError("not_found", `no webhook for provider ${code}`);
      return { provider, secret };
    },
    /** Every configured provider's code. */
    codes: () => registry.codes(),
    pollingCodes: () => registry.codes().filter((code) => followsByPolling(registry.get(code).follow)),
  };
}

export const unknownProvider = (code: string) =>
  invalidField("provider", "active_configuration", `the store has no active ${code} configuration`);
