import { spawn } from "node:child_process";
import { repositoryRoot } from "@pos-cloud/common";
import { afterAll, expect, it } from "vitest";
import { scenarioNames } from "../../bench/scenarios";
import { onPostgres } from "../support/environment";

// Issue 36: the benchmarks cannot rot. `npm run bench -- --smoke` runs every scenario for a few seconds and fails when
// one errors, is refused or loses an event; it judges no speed. The embedded suite runs its parts on PGlite, the
// cluster suite its parts on PostgreSQL, NATS and Redis (the cluster, the plain-`pg` baseline, the NATS drain).
const storage = onPostgres ? "postgres" : "pglite";
const postgresParts = ["create-intent", "events", "cluster", "terminal-simulator"];
const expected = scenarioNames.filter((name) => (onPostgres ? postgresParts.includes(name) : name !== "cluster"));

let child: ReturnType<typeof spawn> | undefined;
afterAll(() => {
  if (child?.exitCode === null) process.kill(-child.pid!, "SIGKILL");
});

it(`npm run bench -- --smoke --storage=${storage} passes, every scenario reporting`, { timeout: 900_000 }, async () => {
  // The platform's request logs would be most of the output: only what goes wrong is kept.
  child = spawn("npm", ["run", "bench", "--silent", "--", "--smoke", `--storage=${storage}`], {
    cwd: repositoryRoot,
    // Not vitest's variables: under them the test support's REST contract check runs inside the benchmark too.
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST"))),
      LOG_LEVEL: "warn",
    },
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child!.once("close", resolve));
  expect(code, output).toBe(0);
  const reported = output.split("\n").filter((line) => !line.includes("skipped:"));
  for (const name of expected)
    expect(
      reported.some((line) => line.startsWith(`${name} `)),
      `${name} reported:\n${output}`,
    ).toBe(true);
});
