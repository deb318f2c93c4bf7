import { vi } from "vitest";

/** Everything written to stdout and stderr (where the logger writes) while `action` runs. */
export async function loggedDuring(action: () => Promise<unknown>): Promise<string> {
  const written: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    }),
  );
  try {
    await action();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return written.join("");
}
