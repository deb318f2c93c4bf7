/// <reference types="node" />
// The one part of the SDK for Node only (`@pos-cloud/terminal-sdk/node`): a browser or web view uses indexedDbStore.
import { open, readFile, rename } from "node:fs/promises";
import type { OfflineStore, QueueRecord } from "../offline-store";

/**
 * The offline queue in a file of JSON lines, appended to and synced to disk record by record; compacted by writing a
 * new file beside it and renaming it over the old one. A process killed while appending leaves at most a last line
 * without its newline: that record never counted (its step is done again), and it is dropped when the file is read.
 */
export function fileStore(path: string): OfflineStore {
  async function write(file: string, text: string, flags: "a" | "w") {
    const handle = await open(file, flags);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  const lines = (records: QueueRecord[]) => records.map((record) => `${JSON.stringify(record)}\n`).join("");
  async function swap(text: string) {
    const next = `${path}.next`;
    await write(next, text, "w");
    await rename(next, path);
  }

  return {
    async load() {
      const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return "";
        throw error;
      });
      const complete = text.slice(0, text.lastIndexOf("\n") + 1);
      // Later appends must not run on from the torn line.
      if (complete.length < text.length) await swap(complete);
      return complete
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as QueueRecord);
    },
    append: (record) => write(path, lines([record]), "a"),
    replace: (records) => swap(lines(records)),
  };
}
