import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Plugin } from "vite";

/** The budget for the JavaScript a first visit downloads, gzipped. */
export const FIRST_LOAD_LIMIT_BYTES = 250 * 1024;

type Chunk = {
  type: "chunk";
  fileName: string;
  code: string;
  imports: string[];
  dynamicImports: string[];
  isEntry: boolean;
};

/**
 * Reports (and caps) the first load: the entry with every chunk it imports statically, plus the heaviest page a
 * first visit can land on (a lazy route and its static imports). Leaves a `.gz` beside every script and style, which
 * the edge serves to clients that accept gzip.
 */
export function firstLoadReport(): Plugin {
  let outDir = "dist";
  return {
    name: "first-load-report",
    apply: "build",
    configResolved(config) {
      outDir = join(config.root, config.build.outDir);
    },
    writeBundle(_options, bundle) {
      const gzipped = new Map<string, number>();
      for (const [fileName, output] of Object.entries(bundle)) {
        if (!/\.(js|css)$/.test(fileName)) continue;
        const zipped = gzipSync(output.type === "chunk" ? output.code : output.source, { level: 9 });
        writeFileSync(join(outDir, `${fileName}.gz`), zipped);
        gzipped.set(fileName, zipped.length);
      }
      const chunks = Object.values(bundle).filter((output): output is Chunk & typeof output => output.type === "chunk");
      const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      const withStaticImports = (start: string[], seen = new Set<string>()) => {
        for (const name of start) {
          if (seen.has(name)) continue;
          seen.add(name);
          withStaticImports(byName.get(name)?.imports ?? [], seen);
        }
        return seen;
      };
      const size = (names: Set<string>) => [...names].reduce((sum, name) => sum + (gzipped.get(name) ?? 0), 0);
      const entry = withStaticImports(chunks.filter((chunk) => chunk.isEntry).map((chunk) => chunk.fileName));
      const pages = chunks.flatMap((chunk) => (chunk.isEntry ? chunk.dynamicImports : []));
      const heaviest = Math.max(
        0,
        ...pages.map((page) => size(withStaticImports([page], new Set(entry))) - size(entry)),
      );
      const total = size(entry) + heaviest;
      const kb = (bytes: number) => (bytes / 1024).toFixed(1);
      this.info(
        `first-load JS ${kb(total)} KB gzipped (shell ${kb(size(entry))} KB + heaviest page ${kb(heaviest)} KB; limit ${kb(FIRST_LOAD_LIMIT_BYTES)} KB)`,
      );
      if (total > FIRST_LOAD_LIMIT_BYTES) this.error(`first-load JS is over ${kb(FIRST_LOAD_LIMIT_BYTES)} KB gzipped`);
    },
  };
}
