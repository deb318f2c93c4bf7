import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { applyMigrations, openDatabase, readMigrations } from "@pos-cloud/common/storage";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import * as bindings from "@prisma/schema-engine-wasm/schema_engine_bg";

// Node has WebAssembly; TypeScript only types it in the DOM library, which the server code must not see.
declare const WebAssembly: {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, unknown>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
};

let loaded: Promise<void> | undefined;

/** The bindings hold one module instance for the process, so the WebAssembly is instantiated once. */
function loadEngine(): Promise<void> {
  loaded ??= (async () => {
    const wasmPath = createRequire(import.meta.url)
      .resolve("@prisma/schema-engine-wasm")
      .replace(/schema_engine\.js$/, "schema_engine_bg.wasm");
    const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {
      "./schema_engine_bg.js": bindings,
    });
    bindings.__wbg_set_wasm(instance.exports as never);
    (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
  })();
  return loaded;
}

/**
 * Prisma's schema engine compiled to WebAssembly, talking to the database through a driver adapter: it works where
 * the native engine cannot be downloaded. Node 20 cannot import .wasm, so the module is instantiated by hand.
 */
export async function openSchemaEngine(schema: string, adapter: SqlMigrationAwareDriverAdapterFactory) {
  await loadEngine();
  const files = [{ path: "schema.prisma", content: schema }];
  const engine = await bindings.SchemaEngine.new(
    { datamodels: [["schema.prisma", schema]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(adapter),
  );
  return {
    /** The SQL that takes the database the adapter is connected to where the schema file says it should be. */
    async diffDatabaseToSchema(): Promise<string> {
      const result = await engine.diff({
        from: { tag: "schemaDatasource", files, configDir: "." },
        to: { tag: "schemaDatamodel", files },
        script: true,
        exitCode: null,
        filters: { externalTables: [], externalEnums: [] },
      });
      return result.stdout ?? "";
    },
    close: () => engine.free(),
  };
}

/**
 * The SQL that would take a subgraph's migrations to its schema.prisma: its migrations are replayed into a scratch
 * embedded database and the engine compares that database with the schema file. Empty when they agree.
 */
export async function pendingSchemaChanges(subgraph: string): Promise<string> {
  const dir = join(import.meta.dirname, subgraph);
  const scratch = await openDatabase({});
  try {
    await applyMigrations(scratch, readMigrations(join(dir, "migrations")));
    const engine = await openSchemaEngine(readFileSync(join(dir, "schema.prisma"), "utf8"), scratch.adapter);
    const sql = await engine.diffDatabaseToSchema();
    engine.close();
    const withoutNoise = sql.replace(/-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/, "");
    return withoutNoise.includes("This is an empty migration") ? "" : withoutNoise.trim();
  } finally {
    await scratch.close();
  }
}
