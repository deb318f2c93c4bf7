import { randomUUID } from "node:crypto";
import { expect, vi } from "vitest";
import { type Credentials, signed } from "./gateway";
import type { SeededStorePartner } from "./seed";
import type { ReceivedWebhook } from "./webhook-receiver";

/** A partner's signed GET of a list with query parameters. */
export function signedList(baseUrl: string, credentials: Credentials, path: string, query: Record<string, string>) {
  const search = new URLSearchParams(query).toString();
  return signed(baseUrl, credentials, "GET", search ? `${path}?${search}` : path);
}

/**
 * Every page of a cursor list (`/v1/events`, `/v1/webhook_deliveries`), two at a time, following each page's `Link`
 * to the next: the nodes in the list's order.
 */
export async function everyPage(
  baseUrl: string,
  credentials: Credentials,
  path: string,
  query: Record<string, string>,
) {
  const nodes: any[] = [];
  let target = `${path}?${new URLSearchParams({ ...query, limit: "2" })}`;
  for (;;) {
    const page = await signed(baseUrl, credentials, "GET", target);
    expect(page.status).toBe(200);
    nodes.push(...page.body);
    const next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get("link") ?? "")?.[1];
    if (!next) return nodes;
    const url = new URL(next, baseUrl);
    target = `${url.pathname}${url.search}`;
  }
}

/** Waits until the partner's key has `count` dead letters created after `since`; returns them, newest first. */
export const deadLettersOf = (baseUrl: string, partner: Credentials, since: Date, count: number) =>
  vi.waitFor(
    async () => {
      const query = { status: "dead", created_after: since.toISOString() };
      const letters = await everyPage(baseUrl, partner, "/v1/webhook_deliveries", query);
      expect(letters).toHaveLength(count);
      return letters;
    },
    { timeout: 15_000, interval: 100 },
  );

/** A card intent of the partner's store, captured: its `payment_intent.succeeded` goes to the partner's webhook. */
export async function capturedIntent(baseUrl: string, partner: SeededStorePartner, amount: number) {
  const created = await signed(baseUrl, partner, "POST", "/v1/payment_intents", {
    amount,
    currency: "JPY",
    payment_method_types: ["credit_card"],
    merchant_ref_id: `order-${randomUUID()}`,
    merchant_store_id: partner.store_code,
  });
  expect(created.status).toBe(201);
  const captured = await signed(baseUrl, partner, "POST", `/v1/payment_intents/${created.body.id}/capture`, {});
  expect(captured.status).toBe(200);
  return created.body.id as string;
}

/** The event ids of webhook requests, and how often each came. */
export function countsById(requests: ReceivedWebhook[]) {
  const counts = new Map<string, number>();
  for (const request of requests) {
    const id = String(request.headers["x-gw-event-id"]);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}
