import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Encrypts secrets at rest (provider credentials, HMAC and webhook secrets, signing keys) with AES-256-GCM under
 * the master key. The stored form is `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export function secretBox(masterKey: Buffer) {
  if (masterKey.length !== 32) throw new Error("the master key must be 32 bytes");
  return {
    seal(plaintext: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
      const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), sealed]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    },
    open(stored: string): string {
      const [version, iv, tag, sealed] = stored.split(".");
      if (version !== "v1" || !iv || !tag || sealed === undefined) throw new Error("not a sealed secret");
      const decipher = createDecipheriv("aes-256-gcm", masterKey, Buffer.from(iv, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

export type SecretBox = ReturnType<typeof secretBox>;

/** A database's secrets do not open with the master key given: it was made with another key. */
export class MasterKeyMismatchError extends Error {
  constructor(database: string) {
    super(
      `the databases were made with another master key (the ${database} database's secrets do not open with this ` +
        "one): give that key with MASTER_KEY (or its file DATA_DIR/master.key), or start on new databases with " +
        "DATABASE_PREFIX (cluster mode) or a new DATA_DIR (npm start)",
    );
    this.name = "MasterKeyMismatchError";
  }
}

/**
 * Opens one secret sealed in a database (none: a new database) when a subgraph opens, so that a start with another
 * master key stops there, before anything else runs or changes, instead of failing at the first secret it needs.
 */
export function checkMasterKey(box: SecretBox, database: string, sealed: string | null | undefined): void {
  if (!sealed) return;
  try {
    box.open(sealed);
  } catch {
    throw new MasterKeyMismatchError(database);
  }
}
