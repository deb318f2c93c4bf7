import { spawn } from "node:child_process";
import { join } from "node:path";

export interface Request {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

/** autocannon in a child process (its JSON result), so the load generator does not share this event loop. */
export function autocannon(request: Request, connections: number, seconds: number): Promise<any> {
  const args = ["-j", "-c", String(connections), "-d", String(seconds), "-m", request.method];
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
