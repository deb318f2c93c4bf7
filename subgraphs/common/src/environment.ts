import { z } from "zod";

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL"),
  INTERNAL_TOKEN: z.string().min(32, "must be at least 32 characters"),
  MASTER_KEY: z.string().regex(/^[0-9a-f]{64}$/i, "must be 64 hex characters (32 bytes)"),
});

export interface SubgraphServerConfig {
  port: number;
  host: string;
  databaseUrl: string;
  internalToken: string;
  masterKey: Buffer;
}

/** Parses the environment with a zod schema; on failure lists every problem and exits, as every app must. */
export function parseEnvironment<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.output<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  console.error(`invalid configuration:\n${problems.join("\n")}`);
  process.exit(1);
}

/**
 * Configuration of a subgraph's standalone server (cluster wiring): everything is required, nothing is generated.
 * Every problem is listed before exiting.
 */
export function loadSubgraphEnvironment(env: NodeJS.ProcessEnv = process.env): SubgraphServerConfig {
  const e = parseEnvironment(schema, env);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    internalToken: e.INTERNAL_TOKEN,
    masterKey: Buffer.from(e.MASTER_KEY, "hex"),
  };
}
