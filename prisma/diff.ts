// npm run db:diff -- <subgraph> <name>
// Writes the change between the subgraph's migrations and its schema.prisma as a new migration, then regenerates
// the Prisma client. Offline: the schema engine runs as WebAssembly against a scratch embedded database.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pendingSchemaChanges } from "./schema-engine";

const [subgraph, name] = process.argv.slice(2);
if (!subgraph || !name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:diff -- <portal|pos|payments> <snake_case_name>");
  process.exit(2);
}
const sql = await pendingSchemaChanges(subgraph);
if (sql === "") {
  console.log(`${subgraph}: schema.prisma matches its migrations; nothing written`);
  process.exit(0);
}
const migrationsDir = join(import.meta.dirname, subgraph, "migrations");
const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
const target = join(migrationsDir, `${stamp}_${name}`);
mkdirSync(target, { recursive: true });
writeFileSync(join(target, "migration.sql"), `${sql}\n`);
writeFileSync(join(migrationsDir, "migration_lock.toml"), 'provider = "postgresql"\n');
console.log(`${subgraph}: wrote ${join(target, "migration.sql")}`);
// The code that uses the new tables needs the client generated from the same schema.
execFileSync(process.execPath, [join(import.meta.dirname, "generate.mjs")], { stdio: "inherit" });
