import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { repositoryRoot } from "@pos-cloud/common";

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the worker's "running" line once it runs; rejects if it ends first. */
  running: Promise<string>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL: no clean stop, as a crash or an out-of-memory kill. */
  kill(): Promise<void>;
}

/** Starts `apps/worker` from its sources, as the cluster does in tests, with `env` over this process's environment. */
export function spawnWorker(env: NodeJS.ProcessEnv, output: (line: string) => void = () => {}): WorkerProcess {
  const child = spawn(process.execPath, ["--import", "tsx", join(repositoryRoot, "apps/worker/src/main.ts")], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let seen = "";
  const running = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const line = seen.split("\n").find((each) => /^worker \d+ running/.test(each));
      if (line) resolve(line);
    });
    child.once("exit", (code, signal) =>
      reject(new Error(`the worker ended (${signal ?? code}) before it was running:\n${seen.slice(-2000)}`)),
    );
  });
  running.catch(() => {});
  for (const stream of [child.stdout!, child.stderr!]) stream.on("data", (chunk: Buffer) => output(chunk.toString()));
  const ended = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill(signal);
    });
  return { child, running, stop: () => ended("SIGTERM"), kill: () => ended("SIGKILL") };
}
