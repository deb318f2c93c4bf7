import { createHash } from "node:crypto";
import ssh2 from "ssh2";

/**
 * What `ssh-keygen -lf` prints for a key (private or public, OpenSSH or PEM): `SHA256:` and the unpadded base64 of
 * the SHA-256 of its public blob. Worked out here from the key itself, apart from the platform's code, so a test
 * expects the fingerprint the server really shows.
 */
export function sshFingerprint(key: string): string {
  const parsed = ssh2.utils.parseKey(key);
  if (parsed instanceof Error) throw parsed;
  const [first] = Array.isArray(parsed) ? parsed : [parsed];
  return `SHA256:${createHash("sha256").update(first!.getPublicSSH()).digest("base64").replace(/=+$/, "")}`;
}
