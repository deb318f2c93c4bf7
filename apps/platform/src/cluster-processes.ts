import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { basename, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { repositoryRoot } from "@pos-cloud/common";

/**
 * V8's young generation up to 16 MB a semi-space (as `npm start` and `start:cluster` run): a request allocates
 * megabytes of short-lived objects (a hierarchy read's 400 stores, twice over federation), and with the default
 * V8 scavenged several times per request (docs/benchmarks.md).
 */
const nodeFlags = ["--max-semi-space-size=16"];

/**
 * Node's arguments for one entry point: the compiled `dist/` when this module is compiled itself (`npm run
 * start:cluster` builds first) or `compiled` says so, the TypeScript sources with tsx otherwise (tests, `tsx`).
 */
function entryArguments(entryPoint: string, compiled = import.meta.url.endsWith(".js")): string[] {
  const workspace = join(repositoryRoot, dirname(entryPoint));
  const name = basename(entryPoint);
  return compiled
    ? [...nodeFlags, "--conditions=compiled", join(workspace, "dist", `${name}.js`)]
    : [...nodeFlags, "--import", "tsx", join(workspace, "src", `${name}.ts`)];
}

/** How long one process may take to listen before start-up gives up. */
const START_TIMEOUT_MS = 60_000;

function waitForPort(port: number, host: string, child: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const exited = () =>
      reject(new Error(`${name} ended before it listened (${child.signalCode ?? `exit code ${child.exitCode}`})`));
    child.once("exit", exited);
    const attempt = () => {
      const socket = connect(port, host);
      socket.once("connect", () => {
        socket.destroy();
        child.off("exit", exited);
        resolve();
      });
      socket.once("error", () => {
        socket.destroy();
        if (child.exitCode !== null) return;
        if (Date.now() > deadline) {
          child.off("exit", exited);
          reject(new Error(`${name} did not listen on ${host}:${port} within ${START_TIMEOUT_MS / 1000} s`));
        } else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** A process is up once it listens on this port, or once it printed a line that matches. */
export type ProcessReady = { port: number; host: string } | RegExp;

/**
 * The processes of a cluster on this machine: each gets `environment` and its own variables, its output lines go to
 * `output` prefixed with its name. If one ends unexpectedly, all stop (`onFailure` is told). `close` stops them a
 * group at a time in `stopOrder` (by name prefix).
 */
export function clusterProcesses(
  environment: NodeJS.ProcessEnv,
  stopOrder: readonly (readonly string[])[],
  {
    output = (line: string) => console.log(line),
    compiled,
    onFailure,
  }: { output?: (line: string) => void; compiled?: boolean; onFailure?: (reason: string) => void },
) {
  const running: { name: string; child: ChildProcess }[] = [];
  let stopping = false;
  /** Why the cluster stopped by itself: a process that is still starting is then stopped too, for this reason. */
  let failure: string | undefined;
  /** Starts a process and resolves once it is up: with the line it said, when `ready` is a pattern. */
  const start = async (
    name: string,
    entryPoint: string,
    env: NodeJS.ProcessEnv,
    ready?: ProcessReady,
  ): Promise<string | undefined> => {
    const child = spawn(process.execPath, entryArguments(entryPoint, compiled), {
      cwd: repositoryRoot,
      env: { ...environment, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.push({ name, child });
    // A process without a port is up once it says so (a worker prints "worker <pid> running").
    const said =
      ready instanceof RegExp
        ? new Promise<string>((resolve, reject) => {
            child.once("exit", () => reject(new Error(`${name} ended before it was running`)));
            createInterface({ input: child.stdout! }).on("line", (line) => ready.test(line) && resolve(line));
          })
        : undefined;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on("line", (line) => output(`[${name}] ${line}`));
    }
    child.once("exit", (code, signal) => {
      if (stopping) return;
      const reason = `${name} ended unexpectedly (${signal ?? `exit code ${code}`}); stopping the cluster`;
      failure = reason;
      output(reason);
      onFailure?.(reason);
      void close();
    });
    const listening =
      ready && !(ready instanceof RegExp) ? waitForPort(ready.port, ready.host, child, name) : undefined;
    const up: Promise<string | undefined> = said ?? listening?.then(() => undefined) ?? Promise.resolve(undefined);
    return await up.catch((error: Error) => {
      throw failure ? new Error(failure, { cause: error }) : error;
    });
  };
  const close = async () => {
    if (stopping) return;
    stopping = true;
    for (const group of stopOrder) {
      await Promise.all(
        running.filter(({ name }) => group.some((g) => name.startsWith(g))).map(({ child }) => stopProcess(child)),
      );
    }
  };
  return { start, close };
}
