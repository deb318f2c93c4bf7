// `npm run bench -- tracing`: what tracing costs. The create-intent load on the embedded platform (PGlite), first
// with tracing off, then on, exporting every span to an OTLP/HTTP receiver in this process (a collector elsewhere
// would take its decoding off this machine's two cores: the figure is an upper bound).
import { startTracing } from "@pos-cloud/common";
import { startOtlpReceiver } from "../tests/support/otlp-receiver";
import { benchCreateIntent } from "./create-intent";
import type { Scale } from "./scale";

export async function benchTracing(scale: Scale) {
  const load = { storage: "pglite", postgresBase: "", connections: 10, ...scale } as const;
  const off = await benchCreateIntent(load);
  const collector = await startOtlpReceiver();
  // Started before the platform, as `npm start` starts it: its databases open traced.
  const tracing = await startTracing({ serviceName: "pos-cloud-bench", endpoint: collector.url });
  try {
    const on = await benchCreateIntent(load);
    await tracing.flush();
    if (collector.spans.length === 0) throw new Error("tracing: no span reached the receiver");
    return {
      off: off.peak,
      on: on.peak,
      on_off_ratio: Math.round((on.peak.requests_per_second / off.peak.requests_per_second) * 100) / 100,
      spans_exported: collector.spans.length,
    };
  } finally {
    await tracing.shutdown();
    await collector.close();
  }
}
