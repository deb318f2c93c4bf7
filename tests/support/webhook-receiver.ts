import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers one request: a status, or `hang` (no answer until the receiver closes). */
export type ReceiverAnswer = number | "hang";

/**
 * A partner's webhook endpoint on 127.0.0.1 that records every request and answers as the test says (204 unless
 * told otherwise); `next()` waits for the next request.
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const hanging = new Set<ServerResponse>();
  const answers: ReceiverAnswer[] = [];
  let fallback: ReceiverAnswer = 204;
  const waiting: ((request: ReceivedWebhook) => void)[] = [];
  let seen = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString() };
      received.push(request);
      const answer = answers.shift() ?? fallback;
      if (answer === "hang") hanging.add(res);
      else res.writeHead(answer).end();
      waiting.shift()?.(request);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** How many requests are waiting for an answer that will not come (`hang`). */
    get hangingCount() {
      return [...hanging].filter((res) => !res.destroyed && !res.writableEnded).length;
    },
    /** Answers for the next requests, in order; after them, `otherwise`. */
    answer(next: ReceiverAnswer[], otherwise: ReceiverAnswer = 204) {
      answers.push(...next);
      fallback = otherwise;
    },
    /** The next request not yet returned by `next`, once it has arrived. */
    next(): Promise<ReceivedWebhook> {
      const index = seen++;
      const arrived = received[index];
      if (arrived) return Promise.resolve(arrived);
      return new Promise((resolve) => {
        waiting.push(() => resolve(received[index]!));
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
