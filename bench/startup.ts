import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { DemoFile } from "../apps/platform/src/demo";
import { temporaryDirectory } from "../tests/support/environment";
import { runClient } from "./create-intent";

const repositoryRoot = join(import.meta.dirname, "..");
/** How long the platform idles before its resident memory is read, as the issue measured it. */
const IDLE_MS = 30_000;
const unlimited = String(Number.MAX_SAFE_INTEGER);

/** The resident memory of the platform's own process (`node … start.mjs`, below `npm start`), in MB. */
function residentMb(npm: ChildProcess): number {
  const tree = execFileSync("ps", ["-o", "pid=,ppid=,rss=,args=", "-g", String(npm.pid)], { encoding: "utf8" });
  const platform = tree.split("\n").find((line) => line.includes("apps/platform/start.mjs") && !line.includes("sh -c"));
  if (!platform) throw new Error(`no platform process under npm start:\n${tree}`);
  return Math.round(Number(platform.trim().split(/\s+/)[2]) / 1024);
}

/** `npm start` until /health answers; the process keeps running until `stop`. */
async function start(dataDir: string, port: number) {
  const started = performance.now();
  const child = spawn("npm", ["start", "--silent"], {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ...Object.fromEntries(["MERCHANT", "STORE", "IP", "GLOBAL", "API"].map((n) => [`RATE_LIMIT_${n}`, unlimited])),
    },
    detached: true,
    stdio: "ignore",
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error("npm start exited before serving /health");
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {}
    await sleep(100);
  }
  return {
    ms: Math.round(performance.now() - started),
    idleMb: async () => {
      await sleep(IDLE_MS);
      return residentMb(child);
    },
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid!, "SIGINT");
      await exited;
    },
  };
}

/**
 * `npm start` until /health answers: on empty storage (migrations, demo tenant) and again on the same storage; the
 * platform process's resident memory after 30 s idle each time, and again 30 s after 20 s of the create-intent
 * load (10 connections) on the warm start. `npm start` builds first: the build is up to date when measured.
 */
export async function measureStartup(port: number) {
  execFileSync("npm", ["run", "build", "--silent"], { cwd: repositoryRoot, stdio: "inherit" });
  const dir = temporaryDirectory("pos-cloud-startup-");
  try {
    const cold = await start(dir.path, port);
    const cold_idle_rss_mb = await cold.idleMb();
    await cold.stop();
    const warm = await start(dir.path, port);
    try {
      const warm_idle_rss_mb = await warm.idleMb();
      const demo: DemoFile = JSON.parse(readFileSync(join(dir.path, "demo.json"), "utf8"));
      const load = await runClient({
        baseUrl: `http://127.0.0.1:${port}`,
        partner: demo.partner,
        storeCode: demo.store.code,
        connections: 10,
        seconds: 20,
      });
      return {
        cold_start_ms: cold.ms,
        warm_start_ms: warm.ms,
        cold_idle_rss_mb,
        warm_idle_rss_mb,
        after_load_idle_rss_mb: await warm.idleMb(),
        load_requests_per_second: load.requests_per_second,
        load_non_2xx: load.non_2xx,
      };
    } finally {
      await warm.stop();
    }
  } finally {
    dir.remove();
  }
}
