import { invalidField } from "@pos-cloud/common";
import type { PaymentProvider } from "./provider.contract";

export interface ProviderRegistry {
  /** The provider with this code; an unknown code is the caller's `invalid_request` on field `provider`. */
  get(code: string): PaymentProvider;
  has(code: string): boolean;
  codes(): string[];
}

/** Providers by their lowercase code; codes are matched case-insensitively, as the sync variants differ in case. */
export function providerRegistry(providers: readonly PaymentProvider[]): ProviderRegistry {
  const byCode = new Map<string, PaymentProvider>();
  for (const provider of providers) {
    if (provider.name !== provider.name.toLowerCase())
      throw new Error(`provider code ${provider.name} is not lowercase`);
    if (byCode.has(provider.name)) throw new Error(`provider ${provider.name} is registered twice`);
    byCode.set(provider.name, provider);
  }
  return {
    get(code) {
      const provider = byCode.get(code.toLowerCase());
      if (!provider) throw invalidField("provider", "known_provider", `unknown provider ${code}`);
      return provider;
    },
    has: (code) => byCode.has(code.toLowerCase()),
    codes: () => [...byCode.keys()],
  };
}
