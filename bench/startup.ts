import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import type { DemoFile } from "../apps/platform/src/demo";
import { runClient } from "./create-intent";
import type { Scale } from "./scale";

const repositoryRoot = join(import.meta.dirname, "..");
const unlimited = String(Number.MAX_SAFE_INTEGER);

/**
 * How the platform is started: `npm start` (compiled; built first when a source changed), or in a smoke run from
 * its sources, which spares the build (about 40 s) and runs the same scenario. `entry` finds the platform's process
 * in the group.
 */
const launchers = {
  compiled: { command: ["npm", "start", "--silent"], entry: "apps/platform/start.mjs" },
  sources: {
    command: [process.execPath, "--import", "tsx", "apps/platform/src/main.ts"],
    entry: "apps/platform/src/main.ts",
  },
};
type Launcher = (typeof launchers)[keyof typeof launchers];

/** The resident memory of the platform's own process (`node … start.mjs`, below `npm start`), in MB. */
function residentMb(launched: ChildProcess, launcher: Launcher): number {
  const tree = execFileSync("ps", ["-o", "pid=,ppid=,rss=,args=", "-g", String(launched.pid)], { encoding: "utf8" });
  const platform = tree.split("\n").find((line) => line.includes(launcher.entry) && !line.includes("sh -c"));
  if (!platform) throw new Error(`no platform process in ${launcher.command.join(" ")}:\n${tree}`);
  return Math.round(Number(platform.trim().split(/\s+/)[2]) / 1024);
}

/** The platform until /health answers; the process keeps running until `stop`. */
async function start(dataDir: string, port: number, launcher: Launcher, idleMs: number) {
  const started = performance.now();
  const [command, ...args] = launcher.command;
  const child = spawn(command!, args, {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      PORT: String(port),
      ADMIN_PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      ...Object.fromEntries(["MERCHANT", "STORE", "IP", "GLOBAL", "API"].map((n) => [`RATE_LIMIT_${n}`, unlimited])),
    },
    detached: true,
    stdio: "ignore",
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${launcher.command.join(" ")} exited before serving /health`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {}
    await sleep(100);
  }
  return {
    ms: Math.round(performance.now() - started),
    idleMb: async () => {
      await sleep(idleMs);
      return residentMb(child, launcher);
    },
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid!, "SIGINT");
      await exited;
    },
  };
}

/** The demo tenant's file, which the platform writes once its edge answers /health, read when it is there. */
async function demoOf(dataDir: string): Promise<DemoFile> {
  const file = join(dataDir, "demo.json");
  for (let waited = 0; !existsSync(file); waited += 100) {
    if (waited > 60_000) throw new Error(`no demo tenant in ${dataDir} a minute after /health answered`);
    await sleep(100);
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

/** A warm start on `dataDir`: idle memory, the create-intent load, idle memory again. */
async function warmStart(dataDir: string, port: number, launcher: Launcher, scale: Scale) {
  const warm = await start(dataDir, port, launcher, scale.idleMs);
  try {
    const warm_idle_rss_mb = await warm.idleMb();
    const demo = await demoOf(dataDir);
    const load = await runClient({
      baseUrl: `http://127.0.0.1:${port}`,
      partner: demo.partner,
      storeCode: demo.store.code,
      connections: 10,
      seconds: scale.seconds * 2,
    });
    return {
      warm_start_ms: warm.ms,
      warm_idle_rss_mb,
      after_load_idle_rss_mb: await warm.idleMb(),
      load_requests_per_second: load.requests_per_second,
      load_non_2xx: load.non_2xx,
    };
  } finally {
    await warm.stop();
  }
}

/**
 * `npm start` until /health answers: on empty storage (migrations, demo tenant) and again on the same storage; the
 * platform process's resident memory after 30 s idle each time, and again 30 s after 20 s of the create-intent
 * load (10 connections) on the warm start. `npm start` builds first: the build is up to date when measured. With
 * `warmDataDir`, storage a platform used already, only the warm start.
 */
export async function measureStartup(port: number, scale: Scale, warmDataDir?: string) {
  const launcher = scale.smoke ? launchers.sources : launchers.compiled;
  if (!scale.smoke) execFileSync("npm", ["run", "build", "--silent"], { cwd: repositoryRoot, stdio: "inherit" });
  if (warmDataDir)
    return {
      cold_start_ms: undefined,
      cold_idle_rss_mb: undefined,
      ...(await warmStart(warmDataDir, port, launcher, scale)),
    };
  const dir = temporaryDirectory("pos-cloud-startup-");
  try {
    const cold = await start(dir.path, port, launcher, scale.idleMs);
    const cold_idle_rss_mb = await cold.idleMb();
    await cold.stop();
    return { cold_start_ms: cold.ms, cold_idle_rss_mb, ...(await warmStart(dir.path, port, launcher, scale)) };
  } finally {
    dir.remove();
  }
}
