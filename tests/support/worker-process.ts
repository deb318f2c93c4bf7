import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the process's "running" line once it runs; rejects if it ends first. */
  running: Promise<string>;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL: no clean stop, as a crash or an out-of-memory kill. */
  kill(): Promise<void>;
}

/**
 * Starts `entry` (a path in the repository) from its sources with `env` over this process's environment; `running`
 * resolves with the first line matching `runningLine`. `preload` modules are imported first (`node --import`).
 */
export function spawnSource(
  entry: string,
  runningLine: RegExp,
  env: NodeJS.ProcessEnv,
  options: { output?: (text: string) => void; preload?: string[] } = {},
): WorkerProcess {
  const imports = ["tsx", ...(options.preload ?? [])].flatMap((module) => ["--import", module]);
  const child = spawn(process.execPath, [...imports, join(repositoryRoot, entry)], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let seen = "";
  const running = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", () => {
      const line = seen.split("\n").find((each) => runningLine.test(each));
      if (line) resolve(line);
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`${entry} ended (${signal ?? code}) before it was running:\n${seen.slice(-2000)}`)),
    );
  });
  running.catch(() => {});
  for (const stream of [child.stdout!, child.stderr!])
    stream.prependListener("data", (chunk: Buffer) => {
      seen += chunk.toString();
      options.output?.(chunk.toString());
    });
  const ended = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  return { child, running, output: () => seen, stop: () => ended("SIGTERM"), kill: () => ended("SIGKILL") };
}

/** Starts `apps/worker` from its sources, as the cluster does in tests, with `env` over this process's environment. */
export function spawnWorker(env: NodeJS.ProcessEnv, output: (line: string) => void = () => {}): WorkerProcess {
  return spawnSource("apps/worker/src/main.ts", /^worker \d+ running/, env, { output });
}
