// `npm start`: compiles the server when a source changed since its last build, then runs it in this process. Checking
// file times here takes milliseconds; running the incremental build to learn that nothing changed took about a second.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..", "..");
/** Written by `npm run build:server` when it succeeds. */
const stamp = join(root, "apps", "platform", "dist", ".built");

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name === "console") continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const built = (() => {
  try {
    return statSync(stamp).mtimeMs;
  } catch {
    return 0;
  }
})();
const sources = Math.max(...["apps", "subgraphs", "rest-compat"].map((dir) => newestSource(join(root, dir))));
if (sources >= built) execFileSync("npm", ["run", "build:server", "--silent"], { cwd: root, stdio: "inherit" });
await import("./dist/main.js");
