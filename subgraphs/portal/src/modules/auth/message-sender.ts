import { AppError, logger } from "@pos-cloud/common";

/** An MFA code on its way to a person. */
export interface OutgoingMessage {
  channel: "sms" | "email";
  to: string;
  subject: string;
  text: string;
}

/** Delivers SMS and e-mail. Real gateways plug in through `openPortal({ messageSender })`. */
export interface MessageSender {
  send(message: OutgoingMessage): Promise<void>;
}

export interface SentMessage extends OutgoingMessage {
  sent_at: string;
}

/**
 * The embedded platform's sender: nothing leaves the machine. Each message is kept in memory (the newest 100) for
 * the development mailbox (`GET /api/v1/dev/messages`, system operators only). The log says only that one was
 * kept: a code in a log file logs in anyone who has the password.
 */
export function recordingMessageSender() {
  const sent: SentMessage[] = [];
  return {
    async send(message: OutgoingMessage) {
      sent.push({ ...message, sent_at: new Date().toISOString() });
      if (sent.length > 100) sent.shift();
      logger.info("message kept instead of sent (no relay configured)", { channel: message.channel });
    },
    /** Newest first. */
    messages: (): SentMessage[] => [...sent].reverse(),
  };
}

export type RecordingMessageSender = ReturnType<typeof recordingMessageSender>;

/**
 * Hands each message to the operator's SMS and e-mail relay: a JSON POST of `{channel, to, subject, text}`,
 * with `Authorization: Bearer <token>` when a token is configured. A refused delivery fails the send request.
 */
export function webhookMessageSender(url: string, token?: string): MessageSender {
  return {
    async send(message) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) throw new AppError("bad_gateway", "the message could not be delivered; try again");
    },
  };
}
