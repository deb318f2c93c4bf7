import { randomUUID } from "node:crypto";
import { type Caller, requireOperator } from "@pos-cloud/common";
import type { MessageOutbox, MessageTransport } from "@pos-cloud/common/messages";
import type { SqlRunner } from "@pos-cloud/common/storage";
import { expect } from "vitest";

export const systemOperator: Caller = { type: "user", id: "operator", role: "SYSTEM_OP", scopes: [] };
export const merchantAdmin: Caller = { type: "user", id: "admin", role: "MERCHANT_ADMIN", merchantId: 1, scopes: [] };

/** Refuses every recipient but those at `delivered.example`: a message to any other is given up on at once. */
export const failingTransport: MessageTransport = async (message) => {
  if (!message.to.endsWith("@delivered.example")) throw new Error(`relay refused ${message.to}`);
};

type Listed = { id: string; recipient: string; attempts: number; given_up_at: Date | null };
type List = (
  caller: Caller,
  page: { limit?: number; offset?: number },
) => Promise<{ nodes: Listed[]; total_count: number; page_info: { has_next_page: boolean } }>;

/**
 * What both subgraphs' lists of messages given up on promise, on a subgraph whose outbox gives up after the first
 * failure (`retryDelaysMs: []`) and whose clock `advance` moves: the secret `body` of each never comes back.
 */
export async function expectUndeliverableList(deps: {
  outbox: MessageOutbox;
  db: SqlRunner;
  list: List;
  advance: () => void;
  kind: string;
}) {
  const send = async (channel: "email" | "sms", to: string, text: string) => {
    deps.advance();
    await deps.outbox.send({ channel, to, subject: "Hello", text }, { kind: deps.kind });
  };
  await send("email", "alice@example.com", "code 731904");
  await send("email", "bob@delivered.example", "code 552817");
  await send("sms", "+81 90-1234-5678", "code 640021");
  await send("email", "carol@example.org", "code 118342");
  // One still being retried, the newest: not given up on yet.
  await deps.db.query(
    `INSERT INTO outgoing_messages (id, kind, channel, recipient, subject, body, attempts, last_error, next_attempt_at, created_at)
     VALUES ($1, $2, 'email', 'dave@example.net', 'Hello', 'code 905512', 1, 'timeout', $3, $3)`,
    [randomUUID(), deps.kind, new Date("2099-01-01T00:00:00Z")],
  );

  const all = await deps.list(systemOperator, {});
  expect(all.total_count).toBe(3);
  expect(all.nodes.map((message) => message.recipient)).toEqual(["c***@example.org", "***5678", "a***@example.com"]);
  expect(all.nodes[0]).toMatchObject({ channel: "email", kind: deps.kind, attempts: 1 });
  expect(all.nodes[0]).toHaveProperty("last_error", "relay refused carol@example.org");
  expect(all.nodes.every((m) => m.given_up_at instanceof Date)).toBe(true);
  const shown = JSON.stringify(all);
  for (const secret of ["731904", "640021", "118342", "body", "Hello"]) expect(shown).not.toContain(secret);

  const second = await deps.list(systemOperator, { limit: 1, offset: 1 });
  expect(second).toMatchObject({ total_count: 3, page_info: { has_next_page: true } });
  expect(second.nodes.map((m) => m.id)).toEqual([all.nodes[1]!.id]);

  // The count's rule (`isOperator`) is `requireOperator`'s: a merchant admin gets its refusal.
  const refusal = (() => {
    try {
      requireOperator(merchantAdmin);
    } catch (error) {
      return error;
    }
  })();
  expect(refusal).toMatchObject({ code: "forbidden" });
  await expect(deps.list(merchantAdmin, {})).rejects.toEqual(refusal);
  await expect(deps.list(systemOperator, { limit: 101 })).rejects.toMatchObject({ code: "invalid_request" });
}
