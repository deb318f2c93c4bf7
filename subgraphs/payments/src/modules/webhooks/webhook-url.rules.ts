import { type LookupAddress, type LookupOptions, lookup } from "node:dns";
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
 * A partner's webhook URL, checked when it is set: its format (`webhookUrl`), then https alone unless private URLs
 * are allowed (for a developer's receiver), and no address the platform refuses to post to. Host names are resolved
 * only when posting (`publicLookup`), as their addresses may change.
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
  const host = bareHost(url.hostname);
  if (!allowPrivate && (isLocalName(host) || (isIP(host) !== 0 && !isPublicAddress(host)))) {
    throw refuse("public_address", "webhook_url must point to a public address");
  }
  return url.href;
}

/** Why a post was not even tried: the URL's host is, or resolves only to, an address that is not public. */
export class RefusedAddressError extends Error {
  constructor(host: string) {
    super(`${host} is not a public address`);
    this.name = "RefusedAddressError";
  }
}

/** Refuses an IP-literal host that is not public (the HTTP client does not resolve those, so `publicLookup` cannot). */
export function checkLiteralHost(url: URL): void {
  const host = bareHost(url.hostname);
  if (isLocalName(host) || (isIP(host) !== 0 && !isPublicAddress(host))) throw new RefusedAddressError(host);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the HTTP client that keeps only public addresses of a host, so a name that resolves (or is
 * re-pointed after the URL was accepted) to an internal address is refused at connection time.
 */
export function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((each) => isPublicAddress(each.address));
    const first = allowed[0];
    if (!first) return callback(new RefusedAddressError(hostname), []);
    if (options.all) return callback(null, allowed);
    callback(null, first.address, first.family);
  });
}
