import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { QueueRecord } from "../offline-store";
import { fileStore } from "./file-store";

const dir = mkdtempSync(join(tmpdir(), "file-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sending = (id: string): QueueRecord => ({ type: "sending", id });

describe("the offline queue's file store", () => {
  it("drops a last record torn by a kill while it was appended, and appends after the whole ones", async () => {
    const path = join(dir, "torn.jsonl");
    const store = fileStore(path);
    await store.append(sending("a"));
    await store.append(sending("b"));
    appendFileSync(path, '{"type":"sending","id":"c"');

    expect(await store.load()).toEqual([sending("a"), sending("b")]);
    await store.append(sending("d"));
    expect(await fileStore(path).load()).toEqual([sending("a"), sending("b"), sending("d")]);
  });

  it("replaces its history by renaming a whole new file over it, leaving nothing beside it", async () => {
    const path = join(dir, "replaced.jsonl");
    const store = fileStore(path);
    for (const id of ["a", "b", "c"]) await store.append(sending(id));
    await store.replace([sending("c")]);
    expect(readFileSync(path, "utf8")).toBe(`${JSON.stringify(sending("c"))}\n`);
    expect(readdirSync(dir).filter((name) => name.startsWith("replaced"))).toEqual(["replaced.jsonl"]);
    expect(await fileStore(join(dir, "absent.jsonl")).load()).toEqual([]);
  });
});
