import { isIP } from "node:net";
import { invalidField } from "@pos-cloud/common";
import ipaddr from "ipaddr.js";
import { MAX_URL_LENGTH, webhookUrl } from "./webhook.inputs";

/**
 * Whether the platform may post to this address: public unicast only, so a webhook URL cannot reach the platform's
 * own network (loopback, private, link-local such as cloud metadata, carrier-grade NAT, multicast, reserved).
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && ipaddr.process(address).range() === "unicast";
}

const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1");

const isLocalName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/**
 * The host of a URL (IPv6 in brackets or not) when it is one the platform refuses to post to: a local name, or an
 * address that is not public. A host name's addresses are judged when posting, as they may change.
 */
export function refusedHost(hostname: string): string | undefined {
  const host = bareHost(hostname);
  return isLocalName(host) || (isIP(host) !== 0 && !isPublicAddress(host)) ? host : undefined;
}

/**
 * A partner's webhook URL, checked when it is set: its format (`webhookUrl`), then https alone unless private URLs
 * are allowed (for a developer's receiver), and no address the platform refuses to post to. Host names are resolved
 * only when posting (`publicLookup` in webhook-sender.client.ts), as their addresses may change.
 */
export function parseWebhookUrl(value: string, allowPrivate: boolean): string {
  const refuse = (constraint: string, message: string) => invalidField("webhook_url", constraint, message);
  const schemes = allowPrivate ? "https:// or http://" : "https://";
  const sentences: Record<string, string> = {
    max_length: `webhook_url is at most ${MAX_URL_LENGTH} characters`,
    url: "webhook_url must be an absolute URL",
    https: `webhook_url must be an ${schemes} URL`,
    no_credentials: "webhook_url must not carry a user name or password",
  };
  const checked = webhookUrl.safeParse(value);
  if (!checked.success) {
    const rule = checked.error.issues[0]?.message ?? "url";
    throw refuse(rule, sentences[rule] ?? sentences.url!);
  }
  const url = new URL(value);
  if (url.protocol !== "https:" && !allowPrivate) throw refuse("https", sentences.https!);
  if (!allowPrivate && refusedHost(url.hostname) !== undefined) {
    throw refuse("public_address", "webhook_url must point to a public address");
  }
  return url.href;
}
