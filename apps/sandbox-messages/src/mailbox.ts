import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newUlid } from "@pos-cloud/common";

/** One message a sandbox received: an e-mail through its mail server or an SMS through its relay. */
export interface ReceivedMessage {
  id: string;
  channel: "email" | "sms";
  received_at: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

/**
 * What the sandboxes received, one JSON file per message under `<stateDir>/messages/` (an e-mail's raw source beside
 * it as `<id>.eml`), named by a ULID so that names sort as they arrived. Any process reads it: the development
 * mailbox, `npm run mail`, tests.
 */
export function mailbox(stateDir: string) {
  const dir = join(stateDir, "messages");
  const path = (id: string, extension: string) => join(dir, `${id}.${extension}`);
  const validId = (id: string) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id);
  return {
    keep(message: Omit<ReceivedMessage, "id" | "received_at">, raw?: Buffer): ReceivedMessage {
      mkdirSync(dir, { recursive: true });
      const kept = { id: newUlid(), received_at: new Date().toISOString(), ...message };
      if (raw) writeFileSync(path(kept.id, "eml"), raw);
      // Whole or not at all: a reader never sees half a message.
      writeFileSync(path(kept.id, "json.partial"), `${JSON.stringify(kept, null, 2)}\n`);
      renameSync(path(kept.id, "json.partial"), path(kept.id, "json"));
      return kept;
    },
    /** Newest first. */
    list(): ReceivedMessage[] {
      if (!existsSync(dir)) return [];
      return readdirSync(dir)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .reverse()
        .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as ReceivedMessage);
    },
    show(id: string): (ReceivedMessage & { raw?: string }) | undefined {
      if (!validId(id) || !existsSync(path(id, "json"))) return undefined;
      const message = JSON.parse(readFileSync(path(id, "json"), "utf8")) as ReceivedMessage;
      const raw = existsSync(path(id, "eml")) ? readFileSync(path(id, "eml"), "utf8") : undefined;
      return { ...message, raw };
    },
  };
}

export type Mailbox = ReturnType<typeof mailbox>;
