import { AppError, type SecretBox } from "@pos-cloud/common";
import { z } from "zod";
import type { ProviderCredentials } from "./provider.contract";
import type { ProviderConfigRepository } from "./provider-credentials.repository";
import { unknownProvider } from "./provider-directory.service";

export type ProviderCredentialStore = ReturnType<typeof providerCredentialStore>;

const credentialsSchema = z.object({ merchant_id: z.string(), api_key: z.string(), api_secret: z.string() });

/** A store's synced credentials for one provider, unsealed only for the call that needs them. */
export function providerCredentialStore(configs: ProviderConfigRepository, box: SecretBox) {
  return {
    /** The store's active configuration of `code`; none (or an inactive one) is the caller's 400 on `provider`. */
    async forStore(store_id: number, code: string): Promise<ProviderCredentials> {
      const config = await configs.active(store_id, code);
      if (!config) throw unknownProvider(code);
      const parsed = credentialsSchema.safeParse(JSON.parse(box.open(config.credentials_sealed)));
      // Synced credentials without the fields the provider needs are the partner's configuration, not this call's.
      if (!parsed.success) {
        throw new AppError("bad_gateway", `the store's ${code} credentials are incomplete`, { provider: code });
      }
      return parsed.data;
    },
  };
}
