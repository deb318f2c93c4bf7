import { createHash } from "node:crypto";
import { posix } from "node:path";
import { requireNoTransaction } from "@pos-cloud/common";
import SftpClient from "ssh2-sftp-client";

/** A merchant's SFTP server and what it logs in with (the secret opened from its seal). */
export interface SftpTarget {
  host: string;
  port: number;
  username: string;
  /** The folder the files go into. */
  path: string;
  password?: string;
  privateKey?: string;
  /** Checks the key the server shows by its fingerprint before anything is sent; throws to refuse the server. */
  verifyHostKey: (fingerprint: string) => Promise<void>;
}

/** A host key's fingerprint as `ssh-keygen -lf` prints it: `SHA256:` and its SHA-256 in base64, unpadded. */
const hostKeyFingerprint = (key: Buffer) =>
  `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;

/**
 * Puts a file on the merchant's server: written under a temporary name, then renamed over the final one, so the
 * other side never reads half a file and a delivery made again replaces the first rather than adding a second.
 */
export async function uploadBySftp(target: SftpTarget, fileName: string, content: string, timeoutMs: number) {
  requireNoTransaction("SFTP upload");
  const client = new SftpClient("accounting-export");
  const final = posix.join(target.path, fileName);
  const partial = `${final}.part`;
  // ssh2 reports a refused key only as "Host denied"; the attempt's error is the verifier's own.
  let refusal: unknown;
  const hostVerifier = (key: Buffer, verify: (accepted: boolean) => void) => {
    target.verifyHostKey(hostKeyFingerprint(key)).then(
      () => verify(true),
      (error: unknown) => {
        refusal = error;
        verify(false);
      },
    );
  };
  try {
    await client
      .connect({
        host: target.host,
        port: target.port,
        username: target.username,
        password: target.password,
        privateKey: target.privateKey,
        hostVerifier,
        readyTimeout: timeoutMs,
        retries: 0,
      })
      .catch((error: unknown) => {
        throw refusal ?? error;
      });
    await client.put(Buffer.from(content, "utf8"), partial);
    await client.rename(partial, final).catch(async (error: unknown) => {
      // A server whose rename does not replace (SFTP v3): the old file goes first.
      if (!(await client.exists(final))) throw error;
      await client.delete(final);
      await client.rename(partial, final);
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}
