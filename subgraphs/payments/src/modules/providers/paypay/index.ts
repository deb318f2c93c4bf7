import { z } from "zod";
import { apiAddress, commonAdapterOptions, parseAdapterOptions } from "../adapter.settings";
import type { ProviderAdapter } from "../provider.contract";
import { payPayProvider } from "./paypay.provider";

/**
 * PayPay follows a payment by polling (its reference recommends every 4 to 5 seconds); its notifications carry no
 * signature, so each only makes its payment due for a poll at once (docs/decisions/payments.md, "PayPay's
 * notifications only prompt a read").
 */
const options = commonAdapterOptions.extend({
  follow: z.literal("polling").default("polling"),
  pollIntervalMs: commonAdapterOptions.shape.pollIntervalMs.default(4_500),
  /** PayPay's host: `https://api.paypay.ne.jp` live, `https://stg-api.sandbox.paypay.ne.jp` PayPay's own sandbox. */
  baseUrl: z.union([z.literal("sandbox"), z.url({ protocol: /^https?$/ })]),
  /** PayPay's reference: the creation call's read timeout should not be less than 30 seconds. */
  timeoutMs: commonAdapterOptions.shape.timeoutMs.default(30_000),
});

/** PayPay's Open Payment API, Dynamic QR. */
export const adapter: ProviderAdapter = {
  build(setting, context) {
    const parsed = parseAdapterOptions(options, setting);
    return {
      provider: payPayProvider({
        code: setting.code,
        baseUrl: apiAddress(setting, parsed.baseUrl, context).baseUrl,
        timeoutMs: parsed.timeoutMs,
        follow: { mode: parsed.follow, pollIntervalMs: parsed.pollIntervalMs },
        notificationMaxAgeSeconds: parsed.notificationMaxAgeSeconds,
      }),
    };
  },
};
