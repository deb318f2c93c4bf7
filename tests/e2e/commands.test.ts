import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "../../subgraphs/common/src/storage";
import { temporaryDirectory } from "../support/environment";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// A bound on waiting, not a speed target: start-up time is measured by `npm run bench -- startup`.
async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited early:\n${output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no /health within 90 s:\n${output()}`);
}

describe("npm start", () => {
  const dir = temporaryDirectory();
  afterAll(() => dir.remove());

  it(
    "serves /health, prints the banner, writes demo.json and stops cleanly on Ctrl-C",
    { timeout: 120_000 },
    async () => {
      const port = await freePort();
      const child = spawn("npm", ["start", "--silent"], {
        cwd: repositoryRoot,
        env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir.path },
        detached: true,
      });
      let output = "";
      const collect = (chunk: Buffer) => {
        output += chunk;
      };
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      try {
        await waitForHealth(`http://127.0.0.1:${port}/health`, child, () => output);
        // /health answers once the port listens; the banner follows when the demo tenant is written.
        for (let i = 0; i < 300 && !output.includes("Ctrl-C stops."); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(output).toContain(`http://127.0.0.1:${port}/graphql`);
        expect(existsSync(join(dir.path, "demo.json"))).toBe(true);
        const exited = new Promise<boolean>((resolve) => child.once("exit", () => resolve(true)));
        // Ctrl-C in a terminal signals the whole process group: npm and the platform under it.
        process.kill(-child.pid!, "SIGINT");
        await exited;
        expect(output).toContain("SIGINT: stopping");
        expect(output).not.toMatch(/did not stop|Error/);
      } finally {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
      }
    },
  );

  it("refuses invalid configuration, listing every problem", async () => {
    const child = spawn("npm", ["start", "--silent"], {
      cwd: repositoryRoot,
      env: { ...process.env, PORT: "not-a-port", DEMO: "maybe", DATA_DIR: dir.path },
    });
    let output = "";
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(output).toMatch(/PORT/);
    expect(output).toMatch(/DEMO/);
  });
});

describe("npm run db:migrate", () => {
  const dir = temporaryDirectory();
  afterAll(() => dir.remove());

  it(
    "brings every subgraph's database to its newest migration, and is a no-op the second time",
    { timeout: 120_000 },
    async () => {
      const run = () =>
        new Promise<{ code: number | null; output: string }>((resolve) => {
          const child = spawn("npm", ["run", "--silent", "db:migrate"], {
            cwd: repositoryRoot,
            env: { ...process.env, DATA_DIR: dir.path },
          });
          let output = "";
          const collect = (chunk: Buffer) => {
            output += chunk;
          };
          child.stdout.on("data", collect);
          child.stderr.on("data", collect);
          child.once("exit", (code) => resolve({ code, output }));
        });
      const first = await run();
      expect(first.code).toBe(0);
      expect(first.output).toMatch(/"migrations applied","subgraph":"portal"/);
      expect(first.output).toMatch(/payments: up to date/);
      const second = await run();
      expect(second.code).toBe(0);
      expect(second.output).not.toMatch(/migrations applied/);
    },
  );
});
