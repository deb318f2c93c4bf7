import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";
import { onPostgres, postgresTestWorkers } from "./tests/support/environment";

const require = createRequire(import.meta.url);

export default defineConfig({
  // Vite would pick graphql's ESM build while Apollo's CommonJS packages load the CommonJS one; two copies of
  // graphql refuse each other's schemas. Everything uses the one Node itself resolves.
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }] },
  test: {
    include: ["{apps,subgraphs,rest-compat,prisma,schema,tests}/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/generated/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: onPostgres ? postgresTestWorkers : undefined,
  },
});
