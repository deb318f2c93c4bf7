import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A span as the OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: (Omit<ReceivedSpan, "service" | "attributes"> & { attributes?: OtlpAttribute[] })[] }[];
  }[];
}
type OtlpAttribute = { key: string; value: Record<string, unknown> };

const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));

/**
 * A collector's OTLP/HTTP endpoint (`POST /v1/traces`, JSON) on 127.0.0.1 that decodes each export and keeps its
 * spans; `until` waits for the spans a test expects.
 */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const waiting = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces" || !req.headers["content-type"]?.includes("json")) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString()) as ExportRequest;
      for (const resource of body.resourceSpans ?? []) {
        const service = String(attributesOf(resource.resource?.attributes)["service.name"]);
        for (const span of (resource.scopeSpans ?? []).flatMap((scope) => scope.spans ?? [])) {
          spans.push({ ...span, service, attributes: attributesOf(span.attributes) });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
      for (const wake of waiting) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    /** Resolves with the spans once `test` holds for them; every export wakes it. */
    until(test: (spans: ReceivedSpan[]) => boolean, timeoutMs = 20_000) {
      return new Promise<ReceivedSpan[]>((resolve, reject) => {
        const check = () => {
          if (!test(spans)) return;
          waiting.delete(check);
          clearTimeout(timer);
          resolve(spans);
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`the spans expected did not arrive in ${timeoutMs} ms; ${spans.length} received`));
        }, timeoutMs);
        waiting.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;
