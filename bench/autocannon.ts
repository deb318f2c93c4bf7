import { spawn } from "node:child_process";
import { join } from "node:path";

export interface Request {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** How long a load runs: for `seconds`, or until `requests` requests are answered, however slow the machine. */
export type LoadLength = { seconds: number } | { requests: number };

/** autocannon in a child process (its JSON result), so the load generator does not share this event loop. */
export function autocannon(request: Request, connections: number, length: LoadLength): Promise<any> {
  const until = "requests" in length ? ["-a", String(length.requests)] : ["-d", String(length.seconds)];
  const args = ["-j", "-c", String(connections), ...until, "-m", request.method];
  for (const [name, value] of Object.entries(request.headers ?? {})) args.push("-H", `${name}=${value}`);
  if (request.body) args.push("-b", request.body);
  args.push(request.url);
  return new Promise((resolve, reject) => {
    const child = spawn(join(import.meta.dirname, "..", "node_modules", ".bin", "autocannon"), args);
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(output)) : reject(new Error(`autocannon exited ${code}`)),
    );
  });
}
