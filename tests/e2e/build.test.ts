import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import { repositoryRoot } from "@pos-cloud/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { whileNoOtherBuild } from "../support/build-lock";
import { isolatedStorage } from "../support/databases";
import { onPostgres } from "../support/environment";

const run = promisify(execFile);

/** Node on a compiled entry point, as production runs it: no tsx, the workspaces' `compiled` exports. */
const compiled = (entryPoint: string) => ["--conditions=compiled", join(repositoryRoot, entryPoint)];

/** Resolves with the first line `child` printed matching `pattern`; rejects if it ends first. */
function printed(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const line = seen.split("\n").find((candidate) => pattern.test(candidate));
      if (line) resolve(line);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`ended with ${code} before printing ${pattern}: ${seen}`)));
  });
}

// Issue 13: `npm run build` compiles to each workspace's dist/, and production processes run it with node. Its
// server half is what these processes run (the console's half is built by `npm ci` and served in console.test.ts).
describe("npm run build", () => {
  beforeAll(async () => {
    await whileNoOtherBuild(() => run("npm", ["run", "build:server"], { cwd: repositoryRoot }));
  }, 300_000);

  it("compiles a worker that loads with node and exits with its clear message when its environment is missing", async () => {
    const failure = await run(process.execPath, compiled("apps/worker/dist/main.js"), {
      cwd: repositoryRoot,
      env: { PATH: process.env.PATH },
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain("invalid configuration:");
    expect(failure?.stderr).toContain("DATABASE_URL_PORTAL");
  });

  it("runs embedded PGlite in its compiled thread", async () => {
    const script = `const { openDatabase } = await import("@pos-cloud/common/storage");
      const db = await openDatabase({});
      console.log(JSON.stringify(await db.query("SELECT 41 + 1 AS answer")));
      await db.close();`;
    const { stdout } = await run(process.execPath, ["--conditions=compiled", "--input-type=module", "--eval", script], {
      cwd: repositoryRoot,
      env: { PATH: process.env.PATH },
    });
    expect(JSON.parse(stdout)).toEqual([{ answer: 42 }]);
  });

  describe.skipIf(!onPostgres)("on PostgreSQL", () => {
    const closers: (() => Promise<unknown>)[] = [];
    afterAll(async () => {
      for (const close of closers.reverse()) await close();
    });

    it("starts a compiled subgraph server that answers its health check", async () => {
      const storage = await isolatedStorage(["portal"]);
      closers.push(() => storage.drop());
      const child = spawn(process.execPath, compiled("subgraphs/portal/dist/server.js"), {
        cwd: repositoryRoot,
        env: {
          PATH: process.env.PATH,
          PORT: "0",
          HOST: "127.0.0.1",
          DATABASE_URL: storage.urls.portal,
          INTERNAL_TOKEN: randomBytes(32).toString("hex"),
          MASTER_KEY: randomBytes(32).toString("hex"),
          PUBLIC_URL: "http://127.0.0.1:4000",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      closers.push(
        () =>
          new Promise((resolve) => {
            if (child.exitCode !== null) return resolve(undefined);
            child.once("exit", resolve);
            child.kill("SIGTERM");
          }),
      );
      const listening = await printed(child, /portal subgraph at \S+/);
      const health = await fetch(new URL("health", listening.split(" at ")[1]));
      expect(health.status).toBe(200);
    });
  });
});
