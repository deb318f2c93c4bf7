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
