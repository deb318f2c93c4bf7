import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import type { PlatformConfig } from "../apps/platform/src/environment";
import { startPlatform } from "../apps/platform/src/platform";

/** Throughput is the subject of a benchmark, not the limiter: every bucket is opened wide. */
const unlimited = Number.MAX_SAFE_INTEGER;

/**
 * The embedded platform with its demo tenant on a fresh data directory (`dir.remove()` once it is closed), or again
 * on `dir`, its databases in PGlite or at the URLs given.
 */
export async function startBenchPlatform(
  prefix: string,
  databaseUrls: PlatformConfig["databaseUrls"] = {},
  dir = temporaryDirectory(prefix),
) {
  const platform = await startPlatform({
    port: 0,
    host: "127.0.0.1",
    admin: { port: 0, host: "127.0.0.1" },
    dataDir: dir.path,
    demo: true,
    databaseUrls,
    rateLimits: { merchant: unlimited, store: unlimited, ip: unlimited, global: unlimited, api: unlimited },
    connectionLimits: { total: unlimited, perIp: unlimited },
  });
  return { platform, dir };
}

export type BenchPlatform = Awaited<ReturnType<typeof startBenchPlatform>>;

/**
 * `work` on `shared`, the smoke run's one embedded platform, left running for the next scenario; without it on a
 * platform of its own, closed after, as a measured scenario runs so that one's rows never weigh on another's figures.
 */
export async function onBenchPlatform<T>(
  shared: BenchPlatform | undefined,
  prefix: string,
  databaseUrls: PlatformConfig["databaseUrls"] | undefined,
  work: (bench: BenchPlatform) => Promise<T>,
): Promise<T> {
  if (shared) return work(shared);
  const own = await startBenchPlatform(prefix, databaseUrls);
  try {
    return await work(own);
  } finally {
    await own.platform.close();
    own.dir.remove();
  }
}
