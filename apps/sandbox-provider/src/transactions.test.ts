import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import { afterEach, describe, expect, it } from "vitest";
import { type SandboxTransaction, transactionBook } from "./transactions";

const directories: { remove(): void }[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) directory.remove();
});

function bookIn(file: string) {
  return transactionBook({ now: Date.now, processingDelayMs: 0, expiresInSeconds: 600, file, onEvent: () => {} });
}

function journalFile() {
  const directory = temporaryDirectory("sandbox-journal-");
  directories.push(directory);
  return join(directory.path, "transactions.json");
}

const qr = { amount: 1500, currency: "JPY", reference: "pi_1", mode: "mpm", notify_url: null } as const;
const lines = (file: string) => readFileSync(file, "utf8").split("\n").filter(Boolean);

describe("sandbox transactions file", () => {
  it("appends one line per change, and a restart finds each transaction as it last stood, compacted", () => {
    const file = journalFile();
    const book = bookIn(file);
    const paid = book.create("m1", qr);
    book.pay(paid.transaction_id);
    const open = book.create("m1", { ...qr, reference: "pi_2" });
    book.close();
    // created, processing, paid; created.
    expect(lines(file)).toHaveLength(4);

    const again = bookIn(file);
    expect(again.get("m1", paid.transaction_id).status).toBe("paid");
    expect(again.get("m1", open.transaction_id).status).toBe("pending");
    again.close();
    expect(lines(file)).toHaveLength(2);
  });

  it("skips a last line cut short by a crash, and reads the earlier whole-array form", () => {
    const file = journalFile();
    const book = bookIn(file);
    const kept = book.create("m1", qr);
    book.close();
    appendFileSync(file, JSON.stringify({ ...kept, status: "paid" }).slice(0, 40));
    const afterCrash = bookIn(file);
    expect(afterCrash.get("m1", kept.transaction_id).status).toBe("pending");
    afterCrash.close();

    const stored: SandboxTransaction = { ...kept, status: "cancelled" };
    writeFileSync(file, JSON.stringify([stored]));
    const fromArray = bookIn(file);
    expect(fromArray.get("m1", kept.transaction_id).status).toBe("cancelled");
    fromArray.close();
  });
});
