// `npm run bench -- tracing`: what tracing costs. The create-intent load on the embedded platform (PGlite), first
// with tracing off, then on, exporting every span to an OTLP/HTTP receiver in this process (a collector elsewhere
// would take its decoding off this machine's two cores: the figure is an upper bound).
import { startTracing } from "@pos-cloud/common";
import { startOtlpReceiver } from "@pos-cloud/test-support/otlp-receiver";
import { benchCreateIntent, type Figures } from "./create-intent";
import type { BenchPlatform } from "./platform";
import type { Scale } from "./scale";

/**
 * `measuredOff`: the same load with tracing off, when this run measured it already (create-intent on PGlite). On
 * runs on a platform started after tracing, which wraps a database as it opens, as `npm start` starts it: one of its
 * own, or the smoke run's shared platform closed and started again on its storage by `restartShared`.
 */
export async function benchTracing(scale: Scale, measuredOff?: Figures, restartShared?: () => Promise<BenchPlatform>) {
  const load = { storage: "pglite", postgresBase: "", connections: 10, ...scale } as const;
  const off = measuredOff ?? (await benchCreateIntent(load)).peak;
  const collector = await startOtlpReceiver();
  const tracing = await startTracing({ serviceName: "pos-cloud-bench", endpoint: collector.url });
  try {
    const on = await benchCreateIntent({ ...load, peakOnly: true, shared: await restartShared?.() });
    await tracing.flush();
    if (collector.spans.length === 0) throw new Error("tracing: no span reached the receiver");
    return {
      off,
      on: on.peak,
      on_off_ratio: Math.round((on.peak.requests_per_second / off.requests_per_second) * 100) / 100,
      spans_exported: collector.spans.length,
    };
  } finally {
    await tracing.shutdown();
    await collector.close();
  }
}
