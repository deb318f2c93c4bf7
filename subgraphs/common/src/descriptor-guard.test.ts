import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import { describe, expect, it } from "vitest";

/**
 * A process with few descriptors (`ulimit -n`), all of them taken as the probe's 20,000 sockets took them, whose
 * idle-collection timer keeps running and whose code then fails to open one more: it must log and keep running.
 */
function runOutOfDescriptors(): { status: number | null; stdout: string; stderr: string } {
  const dir = temporaryDirectory("descriptor-guard-");
  const common = pathToFileURL(join(import.meta.dirname, "index.ts")).href;
  const script = join(dir.path, "child.mjs");
  writeFileSync(
    script,
    `import { openSync } from "node:fs";
import { collectWhenIdle, guardAgainstDescriptorExhaustion } from ${JSON.stringify(common)};
guardAgainstDescriptorExhaustion("child");
collectWhenIdle(20);
const held = [];
try {
  for (;;) held.push(openSync("/dev/null", "r"));
} catch (error) {
  console.log("exhausted", error.code);
}
// A handler that needs one more descriptor, as an accept or a read of /proc does under a flood.
setTimeout(() => openSync("/dev/null", "r"), 50);
// Several ticks of the collection timer later, the process still runs.
setTimeout(() => {
  console.log("alive");
  process.exit(0);
}, 400);
`,
  );
  try {
    const child = spawnSync("sh", ["-c", `ulimit -n 256 && exec "${process.execPath}" --import tsx "${script}"`], {
      encoding: "utf8",
      timeout: 30_000,
    });
    return { status: child.status, stdout: child.stdout, stderr: child.stderr };
  } finally {
    dir.remove();
  }
}

describe("a process out of file descriptors (issue 32)", () => {
  it("keeps running: the collection timer reads no file, and the guard logs EMFILE instead of exiting", () => {
    const { status, stdout, stderr } = runOutOfDescriptors();
    expect({ status, stderr }).toEqual({ status: 0, stderr: "" });
    expect(stdout).toMatch(/^exhausted EMFILE$/m);
    const alert = stdout.split("\n").find((line) => line.includes("descriptors_exhausted"));
    expect(JSON.parse(alert!)).toMatchObject({ level: "error", alert: "descriptors_exhausted" });
    expect(stdout).toMatch(/^alive$/m);
  }, 60_000);
});
