import { spawn } from "node:child_process";
import { repositoryRoot } from "@pos-cloud/common";
import { afterAll, expect, it } from "vitest";
import { scenarioNames } from "../../bench/scenarios";

// Issue 36: the benchmarks cannot rot. `npm run bench -- --smoke` runs every scenario for a few seconds and fails when
// one errors, is refused or loses an event; it judges no speed. `npm test` runs its PGlite parts, every scenario but
// the cluster's. Its PostgreSQL, NATS and Redis parts (`--storage=postgres`: the cluster, the plain-`pg` baseline, the
// NATS drain) take as long again, so they are run by hand before a benchmark, not in CI (docs/decisions/operations.md).
const expected = scenarioNames.filter((name) => name !== "cluster");

let child: ReturnType<typeof spawn> | undefined;
afterAll(() => {
  if (child?.exitCode === null) process.kill(-child.pid!, "SIGKILL");
});

it("npm run bench -- --smoke --storage=pglite passes, every scenario reporting", { timeout: 900_000 }, async () => {
  // The platform's request logs would be most of the output: only what goes wrong is kept.
  child = spawn("npm", ["run", "bench", "--silent", "--", "--smoke", "--storage=pglite"], {
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
