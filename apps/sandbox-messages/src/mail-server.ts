import { createHash, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { logger } from "@pos-cloud/common";
import { type AddressObject, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import type { Mailbox } from "./mailbox";

export interface MailAccount {
  username: string;
  password: string;
}

/** The most a message may weigh: a receipt or an alert is a few kilobytes. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

const digest = (value: string) => createHash("sha256").update(value).digest();
export const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

const addresses = (field: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((group) =>
    group.value.map((address) => address.address ?? ""),
  );

/**
 * A mail server (smtp-server) that takes the platform's mail after AUTH PLAIN or LOGIN with its one account, and
 * keeps every message in the mailbox instead of passing it on. Plain SMTP without TLS: it listens on loopback.
 */
export async function startMailServer(options: {
  host: string;
  port: number;
  account: MailAccount;
  mailbox: Mailbox;
}): Promise<{ port: number; close(): Promise<void> }> {
  const server = new SMTPServer({
    name: "sandbox-mail.pos-cloud.localhost",
    banner: "POS Cloud sandbox mail server",
    authMethods: ["PLAIN", "LOGIN"],
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onAuth(auth, _session, done) {
      const username = auth.username ?? "";
      const password = auth.password ?? "";
      if (sameSecret(username, options.account.username) && sameSecret(password, options.account.password))
        return done(null, { user: username });
      done(new Error("wrong user name or password"));
    },
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", async () => {
        if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded)
          return done(Object.assign(new Error("the message is too large"), { responseCode: 552 }));
        const raw = Buffer.concat(chunks);
        try {
          const parsed = await simpleParser(raw);
          const envelopeTo = session.envelope.rcptTo.map((rcpt) => rcpt.address);
          options.mailbox.keep(
            {
              channel: "email",
              from: addresses(parsed.from)[0] ?? (session.envelope.mailFrom || { address: "" }).address,
              to: envelopeTo.length > 0 ? envelopeTo : addresses(parsed.to),
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
            },
            raw,
          );
          done();
        } catch (error) {
          logger.warn("sandbox mail server: a message could not be read", { error: String(error) });
          done(Object.assign(new Error("the message could not be read"), { responseCode: 554 }));
        }
      });
    },
  });
  server.on("error", (error) => logger.warn("sandbox mail server: a connection failed", { error: error.message }));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = ((server as unknown as { server: { address(): AddressInfo } }).server.address() as AddressInfo).port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
