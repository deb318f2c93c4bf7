import { apiAddress, commonAdapterOptions, notifyUrl, parseAdapterOptions } from "../adapter.settings";
import type { ProviderAdapter } from "../provider.contract";
import { sandboxProvider } from "./sandbox.provider";

/** The sandbox QR provider (`apps/sandbox-provider`), its own protocol: `/v1/payments`, `X-<Code>-Signature`. */
export const adapter: ProviderAdapter = {
  build(setting, context) {
    const options = parseAdapterOptions(commonAdapterOptions, setting);
    const address = apiAddress(setting, options.baseUrl, context);
    const webhooks = options.follow !== "polling";
    return {
      provider: sandboxProvider({
        code: setting.code,
        follow: { mode: options.follow, pollIntervalMs: options.pollIntervalMs },
        baseUrl: address.baseUrl,
        notifyUrl: webhooks ? notifyUrl(context, setting.code) : undefined,
        timeoutMs: options.timeoutMs,
        notificationMaxAgeSeconds: options.notificationMaxAgeSeconds,
      }),
      webhookSecret: webhooks ? (options.webhookSecret ?? address.webhookSecret) : undefined,
    };
  },
};
