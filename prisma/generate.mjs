// Runs `prisma generate` for every subgraph's schema, offline. Generation never runs the schema engine; the CLI
// only checks that a binary exists, so pointing it at any executable lets it work on a machine with no internet.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const prismaDir = dirname(fileURLToPath(import.meta.url));
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  CHECKPOINT_DISABLE: "1",
};
for (const subgraph of readdirSync(prismaDir, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
  const schema = join(prismaDir, subgraph.name, "schema.prisma");
  execFileSync(
    process.execPath,
    [join(prismaDir, "..", "node_modules", "prisma", "build", "index.js"), "generate", "--schema", schema],
    {
      env,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
}
