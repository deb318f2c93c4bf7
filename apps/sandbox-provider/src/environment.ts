import { resolve } from "node:path";
import { z } from "zod";

// The same variable and default as `npm start` (apps/platform/src/environment.ts): the CLI finds the running
// sandbox through what the platform wrote there.
const schema = z.object({ DATA_DIR: z.string().min(1).default(".data") });

export interface CliConfig {
  dataDir: string;
}

export function loadEnvironment(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    console.error(`invalid configuration:\n${problems.join("\n")}`);
    process.exit(1);
  }
  return { dataDir: resolve(parsed.data.DATA_DIR) };
}
