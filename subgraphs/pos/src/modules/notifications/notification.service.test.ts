import { randomBytes } from "node:crypto";
import { isolatedStorage } from "@pos-cloud/test-support/databases";
import { expectUndeliverableList, failingTransport } from "@pos-cloud/test-support/undeliverable";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { PosDeps } from "../../context";
import { openPos } from "../../index";

// POS's e-mails and SMS given up on (receipts, operators' mails), as system operators list them (PostgreSQL under
// TEST_POSTGRES_URL): newest first, paged, recipients masked, the text never read.
describe("POS's undeliverable messages", () => {
  const clock = { now: new Date("2026-03-01T09:00:00Z") };
  let storage: Awaited<ReturnType<typeof isolatedStorage<"pos">>>;
  let pos: PosDeps;

  beforeAll(async () => {
    storage = await isolatedStorage(["pos"]);
    pos = await openPos({
      url: storage.urls.pos,
      masterKey: randomBytes(32),
      portal: () => Promise.reject(new Error("no portal in this test")),
      clock: () => clock.now,
      messages: { transport: failingTransport, retryDelaysMs: [] },
    });
  });
  afterAll(async () => {
    await pos?.close();
    await storage?.drop();
  });

  it("lists only the given-up ones, newest first, masked, without their text, to system operators", () =>
    expectUndeliverableList({
      outbox: pos.messages,
      db: pos.db,
      list: pos.notifications.listUndeliverable,
      advance: () => {
        clock.now = new Date(clock.now.getTime() + 60_000);
      },
      kind: "receipt",
    }));
});
