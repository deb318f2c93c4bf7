import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createPartnerClient, type PartnerWebhookEvent, verifyWebhook } from "@pos-cloud/partner-sdk";

/** What the quickstart needs of the platform's demo.json (`npm start` writes it to `.data/demo.json`). */
export interface QuickstartDemo {
  base_url: string;
  store: { code: string };
  partner: { client_id: string; secret: string; webhook_secret: string };
}

/** A local endpoint that verifies the platform's webhooks and keeps their events. */
async function webhookEndpoint(webhookSecret: string) {
  const events: PartnerWebhookEvent[] = [];
  let received = () => {};
  const eventOf = (intentId: string) =>
    new Promise<PartnerWebhookEvent>((resolve) => {
      received = () => {
        const event = events.find(({ data }) => data.id === intentId);
        if (event) resolve(event);
      };
      received();
    });
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk);
    try {
      events.push(verifyWebhook(webhookSecret, request.headers, Buffer.concat(chunks)));
      received();
      response.writeHead(204).end();
    } catch {
      response.writeHead(400).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return { url, eventOf, close: () => server.close() };
}

export async function quickstart(demo: QuickstartDemo) {
  const partner = createPartnerClient({
    baseUrl: demo.base_url,
    clientId: demo.partner.client_id,
    secret: demo.partner.secret,
  });

  // Where the platform posts this key's events.
  const endpoint = await webhookEndpoint(demo.partner.webhook_secret);
  await partner.PUT("/v1/api_key/webhook", { body: { webhook_url: endpoint.url } });

  // A card payment: the terminal's card app takes it, the partner captures it.
  const { data: intent } = await partner.POST("/v1/payment_intents", {
    body: {
      amount: 1200,
      currency: "JPY",
      payment_method_types: ["credit_card"],
      merchant_ref_id: `quickstart-${Date.now()}`,
      merchant_store_id: demo.store.code,
    },
  });
  if (!intent) throw new Error("no intent");
  await partner.POST("/v1/payment_intents/{id}/capture", {
    params: { path: { id: intent.id } },
    body: { amount: 1200 },
  });

  // Every succeeded intent, page after page.
  const succeeded: string[] = [];
  for await (const each of partner.paginate(() =>
    partner.GET("/v1/payment_intents", { params: { query: { status: "succeeded", limit: 50 } } }),
  )) {
    succeeded.push(each.id);
  }

  // The webhook of the capture, verified.
  const event = await endpoint.eventOf(intent.id);
  endpoint.close();
  return { intent, succeeded, event };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const demo: QuickstartDemo = JSON.parse(readFileSync(".data/demo.json", "utf8"));
  const { intent, succeeded, event } = await quickstart(demo);
  console.log(
    `created ${intent.id}; ${succeeded.length} succeeded intents; webhook ${event.type} for ${event.data.id}`,
  );
}
