import { loadSubgraphEnvironment, parseEnvironment, settings } from "@pos-cloud/common";
import { messagesFromEnvironment } from "@pos-cloud/common/messages";
import { z } from "zod";

/**
 * The pos subgraph's standalone configuration: a subgraph's, plus the portal subgraph it asks about stores and staff,
 * and the payment gateway it pays through as a client partner (GATEWAY_URL, POS_GATEWAY_CLIENT_ID,
 * POS_GATEWAY_SECRET; without them payments answer 503; the credential only seeds POS's database, where the platform's
 * renewal job writes each renewed key), and the mail server it e-mails receipts through (SMTP_URL,
 * SMS_RELAY_URL, SMS_RELAY_SECRET, MAIL_FROM; without them every e-mail fails and ends as an alert), and how old a sale
 * recorded offline may be when it arrives (OFFLINE_SALES_WINDOW_HOURS).
 */
export function loadPosEnvironment(env: NodeJS.ProcessEnv = process.env) {
  const e = parseEnvironment(
    z.object({
      PORTAL_URL: z.url(),
      GATEWAY_URL: z.url().optional(),
      POS_GATEWAY_CLIENT_ID: z.string().min(1).optional(),
      POS_GATEWAY_SECRET: z.string().min(16).optional(),
      OFFLINE_SALES_WINDOW_HOURS: settings.offlineSalesWindowHours,
    }),
    env,
  );
  const gateway =
    e.GATEWAY_URL && e.POS_GATEWAY_CLIENT_ID && e.POS_GATEWAY_SECRET
      ? { url: e.GATEWAY_URL, clientId: e.POS_GATEWAY_CLIENT_ID, secret: e.POS_GATEWAY_SECRET }
      : undefined;
  return {
    ...loadSubgraphEnvironment(env),
    portalUrl: e.PORTAL_URL,
    gateway,
    messages: messagesFromEnvironment(env),
    offlineSalesWindowHours: e.OFFLINE_SALES_WINDOW_HOURS,
  };
}
