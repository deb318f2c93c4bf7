import { createHmac } from "node:crypto";
import { createTransport } from "nodemailer";
import { requireNoTransaction } from "../transaction-scope";

/** A message on its way to a person: an e-mail or an SMS. */
export interface OutgoingMessage {
  channel: "email" | "sms";
  /** An e-mail address or an E.164 phone number. */
  to: string;
  subject: string;
  text: string;
  /** E-mail only: where answers go (a store's contact address). */
  replyTo?: string;
}

/** Hands one message to the outside party that carries it; rejects when that party refused it or did not answer. */
export type MessageTransport = (message: OutgoingMessage) => Promise<void>;

export interface MessageTransportSettings {
  /** `smtp://user:password@host:port` (STARTTLS when the server offers it) or `smtps://` (TLS from the start). */
  smtpUrl: string;
  /** The From of every e-mail. */
  mailFrom: string;
  /** The SMS relay: `POST <url>` signed with `secret` (`smsSignature`). */
  sms: { url: string; secret: string };
}

export const DEFAULT_MAIL_FROM = "POS Cloud <no-reply@pos-cloud.localhost>";

const TIMEOUT_MS = 10_000;

/**
 * The SMS relay's signature: hex HMAC-SHA256 under the shared secret of `<timestamp>.<body>`, sent as
 * `X-Relay-Signature` with `X-Relay-Timestamp` (Unix seconds), the way SMS providers sign their API calls.
 */
export const smsSignature = (secret: string, timestamp: string, body: string) =>
  createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");

/** E-mail over SMTP (nodemailer), SMS through the provider-shaped HTTP relay. */
export function messageTransport(settings: MessageTransportSettings): MessageTransport & { close(): void } {
  const mailer = createTransport({
    url: settings.smtpUrl,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  });
  const send = async (message: OutgoingMessage) => {
    requireNoTransaction(`${message.channel} message`);
    if (message.channel === "email") {
      await mailer.sendMail({
        from: settings.mailFrom,
        to: message.to,
        subject: message.subject,
        text: message.text,
        replyTo: message.replyTo,
      });
      return;
    }
    const body = JSON.stringify({ to: message.to, text: message.text });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const response = await fetch(settings.sms.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-relay-timestamp": timestamp,
        "x-relay-signature": smsSignature(settings.sms.secret, timestamp, body),
      },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!response.ok)
      throw new Error(`the SMS relay answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  };
  return Object.assign(send, { close: () => mailer.close() });
}
