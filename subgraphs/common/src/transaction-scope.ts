import { AsyncLocalStorage } from "node:async_hooks";
import { logger } from "./logger";

/**
 * Whether the code running is inside a database transaction (CONTRIBUTING.md, "No network call inside a database
 * transaction"). The storage wrapper marks its transactions and Prisma's (`markTransactions`); the clients that leave
 * the process (the gateway client, provider adapters, partner webhooks, the portal's sync, SMTP, SMS, SFTP, calls
 * between subgraphs) ask `requireNoTransaction` before they send.
 */
const scope = new AsyncLocalStorage<string>();

/** Runs `work` marked as inside the transaction `name`. */
export const inTransaction = <T>(name: string, work: () => Promise<T>): Promise<T> => scope.run(name, work);

/**
 * Runs `work` outside any transaction's scope: for what a transaction only hands on, to run later on its own (the
 * in-memory bus delivering an event the outbox publisher put on it in its claim's transaction).
 */
export const apartFromTransaction = <T>(work: () => T): T => scope.exit(work);

/**
 * Refuses a network call inside a transaction: it would hold the transaction's locks and connection for as long as
 * the other side takes, and a rollback could not take back what it did. Throws under the tests, so every test that
 * reaches such a call fails; elsewhere it logs an error and lets the call go, never failing a payment on its account.
 */
export function requireNoTransaction(call: string) {
  const transaction = scope.getStore();
  if (transaction === undefined) return;
  const message = `${call}: a network call inside a database transaction (${transaction})`;
  if (process.env.VITEST) throw new Error(message);
  logger.error("network call inside a database transaction", { call, transaction });
}
