import { beforeEach } from "vitest";

/**
 * The platform's log lines (pino, straight to stdout) are held while a test runs and shown only when it fails: a
 * passing run's output is the runner's alone, a failing test still shows what the platform said. What a file's
 * `beforeAll` logs is held with its first test's lines. `loggedDuring` spies on the same `write` and still sees them.
 */
const key = Symbol.for("pos-cloud.quiet-logs");
const marked = process.stdout as NodeJS.WriteStream & { [key]?: { held: string[]; write: (text: string) => void } };

// Test files share one process (isolate: false) and this file runs before each: the stream is replaced once.
if (!marked[key]) {
  const held: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const heldLines = 5000;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    held.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString());
    if (held.length > heldLines) held.splice(0, held.length - heldLines);
    const callback = rest.find((argument) => typeof argument === "function") as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
  marked[key] = { held, write };
}
const quiet = marked[key];

beforeEach(({ onTestFinished }) => {
  onTestFinished(({ task }) => {
    if (task.result?.state === "fail") quiet.write(quiet.held.join(""));
    quiet.held.length = 0;
  });
});
