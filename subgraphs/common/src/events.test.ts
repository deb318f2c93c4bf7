import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { EventContractError, eventRow, intentOfEvent, isEventType, readEvent } from "./events";
import { paymentIntentMachine } from "./payment-intent.machine";
import { repositoryRoot } from "./repository-root";

const at = new Date("2026-11-28T10:00:00.000Z");

/** An intent row as the payments subgraph stores it: the public fields and its poller's own columns. */
const intentRow = {
  id: "pi_01",
  merchant_id: 3,
  store_id: 7,
  client_partner_id: 5,
  merchant_ref_id: "ref-1",
  merchant_store_id: null,
  merchant_terminal_id: null,
  order_id: null,
  amount: 1200,
  currency: "JPY",
  payment_method_types: ["qr_mpm"],
  payment_method_type: "qr_mpm",
  processing_mode: "pgw_processed",
  status: "succeeded",
  provider_name: "sandbox",
  provider_transaction_id: "tx-1",
  failure_code: null,
  failure_message: null,
  description: null,
  metadata: { table: "4" },
  captured_at: at,
  created_at: at,
  updated_at: at,
  expires_at: at,
  next_poll_at: at,
  poll_attempts: 2,
};
const metadata = { client_partner_id: 5, occurred_at: at };

describe("the event catalogue", () => {
  it("builds an intent event's payload as the public intent: times as ISO strings, the row's own columns left out", () => {
    const row = eventRow("payment_intent.succeeded", intentRow.id, { payment_intent: intentRow, metadata }, at);
    expect(row).toMatchObject({ event_type: "payment_intent.succeeded", aggregate_type: "payment_intent" });
    const { next_poll_at: _, poll_attempts: __, ...shown } = intentRow;
    expect(row.payload).toEqual({
      payment_intent: { ...JSON.parse(JSON.stringify(shown)), captured_at: at.toISOString() },
      metadata: { client_partner_id: 5, occurred_at: at.toISOString() },
    });
    expect(intentOfEvent(row)).toEqual(row.payload.payment_intent);
  });

  it("refuses at the producer a payload its schema does not accept, naming the field", () => {
    const unknownStatus = { payment_intent: { ...intentRow, status: "paid" }, metadata };
    expect(() => eventRow("payment_intent.succeeded", intentRow.id, unknownStatus, at)).toThrow(EventContractError);
    const { amount: _, ...withoutAmount } = intentRow;
    expect(() =>
      // @ts-expect-error the amount is missing, which the compiler sees as well
      eventRow("payment_intent.failed", intentRow.id, { payment_intent: withoutAmount, metadata }, at),
    ).toThrow(/amount/);
    expect(() =>
      eventRow("api_keys.revoked", "client_partner:5", { client_partner_id: 5.5, api_key_id: null }, at),
    ).toThrow(EventContractError);
  });

  it("holds every event the intent machine emits", () => {
    const emitted = paymentIntentMachine.moves.flatMap((move) => (move.emits ? [move.emits] : []));
    expect(emitted.filter((type) => !isEventType(type))).toEqual([]);
  });

  it("reads a published event by its type, leaves types it does not hold alone and refuses a payload off its schema", () => {
    const revoked = eventRow("api_keys.revoked", "client_partner:5", { client_partner_id: 5, api_key_id: "key_1" }, at);
    expect(readEvent(revoked)).toEqual({
      event_type: "api_keys.revoked",
      aggregate_type: "client_partner",
      aggregate_id: "client_partner:5",
      payload: { client_partner_id: 5, api_key_id: "key_1" },
    });
    expect(readEvent({ ...revoked, event_type: "refund.invented" })).toBeUndefined();
    expect(() => readEvent({ ...revoked, payload: { client_partner_id: "5" } })).toThrow(EventContractError);
  });
});

/** The TypeScript source files of the platform, tests and generated files aside. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return ["node_modules", "dist", "generated"].includes(entry.name) ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.(test|generated)\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const codeLines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .map((line, index) => ({ line, at: `${relative(repositoryRoot, path)}:${index + 1}` }))
    .filter(({ line }) => !/^\s*(\*|\/\/|\/\*)/.test(line));

describe("consumers of events", () => {
  const folders = ["subgraphs", "apps", "rest-compat/src"].map((folder) => join(repositoryRoot, folder));
  const eventFiles = folders
    .flatMap(sourceFiles)
    .filter((path) => /BusEvent|OutboxRow|event_type/.test(readFileSync(path, "utf8")));

  // docs/decisions/events.md, "Events are typed contracts (issue 37)": the measure "consumers casting event payloads: 0".
  it("never cast an event's payload: they read it through the catalogue", () => {
    expect(eventFiles.length).toBeGreaterThan(10);
    const casts = eventFiles
      .flatMap(codeLines)
      .filter(({ line }) => /\bpayload\b(?:[\w$.[\]"']*|[^;\n]*?\))\s+as\s+(?!const\b)/.test(line));
    expect(casts.map(({ at }) => at)).toEqual([]);
  });

  it("include the POS's gateway client, which reads the gateway's answers with the catalogue's schemas", () => {
    const client = join(repositoryRoot, "subgraphs/pos/src/modules/payments/gateway.client.ts");
    const casts = codeLines(client).filter(({ line }) => /\sas\s+(?!const\b)\S/.test(line));
    expect(casts.map(({ at }) => at)).toEqual([]);
  });
});
