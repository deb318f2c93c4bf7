import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { launchChromium } from "@pos-cloud/test-support/browser";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { QueueRecord } from "./offline-store";

// The IndexedDB store in a real browser: Chromium's IndexedDB, on a page of its own origin, across a reload.

let browser: Browser;
let server: Server;
let origin: string;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [join(import.meta.dirname, "indexeddb-store.ts")],
    bundle: true,
    format: "esm",
    write: false,
  });
  const script = bundle.outputFiles[0]?.text ?? "";
  const page = `<!doctype html><title>store</title><script type="module">
    import { indexedDbStore } from "/store.js";
    window.indexedDbStore = indexedDbStore;
  </script>`;
  server = createServer((request, response) => {
    const isScript = request.url === "/store.js";
    response.writeHead(200, { "content-type": isScript ? "text/javascript" : "text/html" });
    response.end(isScript ? script : page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

type InPage = { indexedDbStore: (name: string) => Record<string, (argument?: unknown) => Promise<unknown>> };

/** Runs one store method in the page, on the database `name`. */
async function inPage(page: Page, name: string, method: "load" | "append" | "replace", argument?: unknown) {
  await page.waitForFunction(() => "indexedDbStore" in globalThis);
  return page.evaluate(
    ([name, method, argument]) => (globalThis as unknown as InPage).indexedDbStore(name)[method]?.(argument),
    [name, method, argument] as const,
  );
}

const sending = (id: string): QueueRecord => ({ type: "sending", id });

describe("the offline queue's IndexedDB store", () => {
  it("keeps its records in order across a reload, and replaces them all at once", async () => {
    const page = await browser.newPage();
    await page.goto(origin);
    expect(await inPage(page, "queue", "load")).toEqual([]);
    for (const id of ["a", "b", "c"]) await inPage(page, "queue", "append", sending(id));
    await page.reload();
    expect(await inPage(page, "queue", "load")).toEqual([sending("a"), sending("b"), sending("c")]);

    await inPage(page, "queue", "replace", [sending("c"), sending("d")]);
    await inPage(page, "queue", "append", sending("e"));
    await page.reload();
    expect(await inPage(page, "queue", "load")).toEqual([sending("c"), sending("d"), sending("e")]);
    expect(await inPage(page, "another", "load")).toEqual([]);
    await page.close();
  });
});
