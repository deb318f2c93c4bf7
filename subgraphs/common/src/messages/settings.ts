import { z } from "zod";
import { parseEnvironment } from "../environment";
import { DEFAULT_MAIL_FROM, type MessageTransportSettings, messageTransport } from "./transport";

/** The environment's mail server and SMS relay, for every process that sends (zod fields to spread into a schema). */
export const messageSettings = {
  /** `smtp://user:password@host:port` or `smtps://`; unset: the sandbox mail server (embedded, cluster). */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).default(DEFAULT_MAIL_FROM),
  /** The SMS relay's `POST` endpoint; unset: the sandbox relay. */
  SMS_RELAY_URL: z.url({ protocol: /^https?$/ }).optional(),
  SMS_RELAY_SECRET: z.string().min(16, "at least 16 characters").optional(),
};

type MessageEnvironment = {
  SMTP_URL?: string;
  MAIL_FROM: string;
  SMS_RELAY_URL?: string;
  SMS_RELAY_SECRET?: string;
};

/** Where e-mail and SMS go; a part left out is the sandbox's, where one runs. */
export interface MessageConfig {
  smtpUrl?: string;
  mailFrom: string;
  sms?: { url: string; secret: string };
}

/** The relay's URL and secret go together. */
export function messageSettingsProblems(e: MessageEnvironment, context: z.RefinementCtx) {
  if ((e.SMS_RELAY_URL === undefined) !== (e.SMS_RELAY_SECRET === undefined)) {
    const missing = e.SMS_RELAY_URL === undefined ? "SMS_RELAY_URL" : "SMS_RELAY_SECRET";
    context.addIssue({ code: "custom", path: [missing], message: "SMS_RELAY_URL and SMS_RELAY_SECRET go together" });
  }
}

export const messageConfig = (e: MessageEnvironment): MessageConfig => ({
  smtpUrl: e.SMTP_URL,
  mailFrom: e.MAIL_FROM,
  sms: e.SMS_RELAY_URL && e.SMS_RELAY_SECRET ? { url: e.SMS_RELAY_URL, secret: e.SMS_RELAY_SECRET } : undefined,
});

/** Complete settings, or undefined when a part is missing (a process that sends nothing then). */
export const completeMessageSettings = (config: MessageConfig): MessageTransportSettings | undefined =>
  config.smtpUrl && config.sms ? { smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, sms: config.sms } : undefined;

/** A subgraph's or worker's mail server and relay from its environment (the cluster passes the sandbox's). */
export function loadMessageEnvironment(env: NodeJS.ProcessEnv = process.env): MessageConfig {
  return messageConfig(parseEnvironment(z.object(messageSettings).superRefine(messageSettingsProblems), env));
}

/**
 * A sending process's transport from its environment (SMTP_URL, MAIL_FROM, SMS_RELAY_URL, SMS_RELAY_SECRET; the
 * cluster passes the sandboxes'); undefined while the mail server or the relay is not configured.
 */
export function messagesFromEnvironment(env: NodeJS.ProcessEnv = process.env) {
  const settings = completeMessageSettings(loadMessageEnvironment(env));
  return settings && { transport: messageTransport(settings) };
}
