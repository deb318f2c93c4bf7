import { spawn } from "node:child_process";
import { join } from "node:path";
import { temporaryDirectory } from "../tests/support/environment";

const repositoryRoot = join(import.meta.dirname, "..");

async function timeToHealth(dataDir: string, port: number): Promise<number> {
  const started = performance.now();
  const child = spawn("npm", ["start", "--silent"], {
    cwd: repositoryRoot,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir },
    detached: true,
    stdio: "ignore",
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error("npm start exited before serving /health");
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return performance.now() - started;
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid!, "SIGINT");
    await exited;
  }
}

/** `npm start` until /health answers: on empty storage (migrations, demo tenant) and again on the same storage. */
export async function measureStartup(port: number) {
  const dir = temporaryDirectory("pos-cloud-startup-");
  try {
    const cold = await timeToHealth(dir.path, port);
    const warm = await timeToHealth(dir.path, port);
    return { cold_start_ms: Math.round(cold), warm_start_ms: Math.round(warm) };
  } finally {
    dir.remove();
  }
}
