import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ulid } from "ulid";
import type { MerchantAccount } from "./auth";
import { type NotificationShape, notificationBody } from "./notifications";
import { notifier } from "./notifier";
import { createSandboxServer } from "./server";
import { transactionBook } from "./transactions";

export interface SandboxOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Signs notifications; the header is `X-<Code>-Signature`. */
  providerCode?: string;
  webhookSecret: string;
  accounts: readonly MerchantAccount[];
  /** Between the customer paying and the outcome; 0 decides at once. */
  processingDelayMs?: number;
  /** How long a QR code can be paid. */
  expiresInSeconds?: number;
  /** Waits before each notification retry. */
  retryDelaysMs?: readonly number[];
  notificationShape?: NotificationShape;
  /** The clock, in epoch milliseconds; tests move it instead of waiting. */
  now?: () => number;
  /** Keeps transactions across restarts. */
  dataFile?: string;
}

export interface RunningSandbox {
  baseUrl: string;
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_RETRY_DELAYS_MS = [2_000, 10_000, 30_000, 120_000] as const;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** A QR payment provider of its own: its API, its customers' pay page, its signed notifications. */
export async function startSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const now = options.now ?? Date.now;
  const host = options.host ?? "127.0.0.1";
  const shape = options.notificationShape ?? "flat";
  const notifications = notifier({
    providerCode: options.providerCode ?? "sandbox",
    webhookSecret: options.webhookSecret,
    retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
  });
  const book = transactionBook({
    now,
    processingDelayMs: options.processingDelayMs ?? 0,
    expiresInSeconds: options.expiresInSeconds ?? 600,
    file: options.dataFile,
    onEvent(transaction, type) {
      if (!transaction.notify_url) return;
      const eventId = `evt_${ulid()}`;
      notifications.send(
        transaction.notify_url,
        eventId,
        notificationBody(shape, eventId, type, transaction, new Date(now())),
      );
    },
  });
  let baseUrl = "";
  const server = createSandboxServer({ accounts: options.accounts, book, now, publicUrl: () => baseUrl });
  let port: number;
  try {
    port = await listen(server, options.port ?? 0, host);
  } catch (error) {
    book.close();
    throw error;
  }
  const shownHost = host === "0.0.0.0" || host === "::" ? "localhost" : host;
  baseUrl = `http://${shownHost}:${port}`;
  return {
    baseUrl,
    port,
    async close() {
      notifications.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      book.close();
    },
  };
}
