import { randomBytes } from "node:crypto";
import { isolatedStorage } from "@pos-cloud/test-support/databases";
import { expectUndeliverableList, failingTransport } from "@pos-cloud/test-support/undeliverable";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { PortalDeps } from "../../context";
import { openPortal } from "../../index";

// The portal's e-mails and SMS given up on (login codes), as system operators list them (PostgreSQL under
// TEST_POSTGRES_URL): newest first, paged, recipients masked, the sealed code never read.
describe("the portal's undeliverable messages", () => {
  const clock = { now: new Date("2026-03-01T09:00:00Z") };
  let storage: Awaited<ReturnType<typeof isolatedStorage<"portal">>>;
  let portal: PortalDeps;

  beforeAll(async () => {
    storage = await isolatedStorage(["portal"]);
    portal = await openPortal({
      url: storage.urls.portal,
      masterKey: randomBytes(32),
      clock: () => clock.now,
      messages: { transport: failingTransport, retryDelaysMs: [] },
    });
  });
  afterAll(async () => {
    await portal?.close();
    await storage?.drop();
  });

  it("lists only the given-up ones, newest first, masked, without their text, to system operators", () =>
    expectUndeliverableList({
      outbox: portal.messages,
      db: portal.db,
      list: portal.outgoingMessages.listUndeliverable,
      advance: () => {
        clock.now = new Date(clock.now.getTime() + 60_000);
      },
      kind: "mfa_code",
    }));
});
