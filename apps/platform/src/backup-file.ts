import { createCipheriv, createDecipheriv, createHmac, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/**
 * A backup file: the archive encrypted with AES-256-GCM under a key derived from the operator's passphrase by scrypt,
 * streamed (a backup is as large as the databases). Layout: MAGIC, salt, iv, passphrase check, ciphertext, GCM tag.
 * The header is the cipher's additional data, so changing any byte of the file is refused.
 */
const MAGIC = Buffer.from("PCBKUP1\n");
const SALT_BYTES = 16;
const IV_BYTES = 12;
const CHECK_BYTES = 16;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + SALT_BYTES + IV_BYTES + CHECK_BYTES;
/** OWASP's scrypt parameters (N 2^17, r 8, p 1): about 128 MB and a fraction of a second per backup or restore. */
const SCRYPT = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };

/** A backup that this passphrase does not open, or that is not a backup, or was changed: the message says which. */
export class BackupRefused extends Error {}

const deriveKeys = (passphrase: string, salt: Buffer) =>
  new Promise<{ key: Buffer; checkKey: Buffer }>((resolve, reject) =>
    scrypt(passphrase.normalize("NFC"), salt, 64, SCRYPT, (error, bytes) =>
      error ? reject(error) : resolve({ key: bytes.subarray(0, 32), checkKey: bytes.subarray(32) }),
    ),
  );

/** Tells a wrong passphrase from a changed file before decrypting gigabytes; keyed apart from the cipher's key. */
const checkOf = (checkKey: Buffer, salt: Buffer, iv: Buffer) =>
  createHmac("sha256", checkKey)
    .update(Buffer.concat([MAGIC, salt, iv]))
    .digest()
    .subarray(0, CHECK_BYTES);

/**
 * Writes `archive` encrypted to `file`, owner-only (0600) from its first byte: into a new file beside it, renamed over
 * `file` once whole, so a failed backup never leaves a partial file under the backup's name.
 */
export async function sealBackup(archive: AsyncIterable<Buffer>, file: string, passphrase: string): Promise<void> {
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const { key, checkKey } = await deriveKeys(passphrase, salt);
  const header = Buffer.concat([MAGIC, salt, iv, checkOf(checkKey, salt, iv)]);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(header);
  const partial = `${file}.partial-${process.pid}`;
  try {
    await pipeline(
      Readable.from(archive),
      cipher,
      async function* (encrypted: AsyncIterable<Buffer>) {
        yield header;
        yield* encrypted;
        yield cipher.getAuthTag();
      },
      createWriteStream(partial, { flags: "wx", mode: 0o600 }),
    );
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
}

function readHeader(file: string) {
  const size = statSync(file).size;
  const fd = openSync(file, "r");
  try {
    const read = (bytes: number, at: number) => {
      const buffer = Buffer.alloc(bytes);
      readSync(fd, buffer, 0, bytes, at);
      return buffer;
    };
    const header = read(HEADER_BYTES, 0);
    if (size < HEADER_BYTES + TAG_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new BackupRefused(`${file} is not an encrypted backup of the platform`);
    }
    return { header, tag: read(TAG_BYTES, size - TAG_BYTES), size };
  } finally {
    closeSync(fd);
  }
}

/** Decrypts `file` into `archive` (a new owner-only file); refuses a wrong passphrase and any changed byte. */
export async function openBackup(file: string, passphrase: string, archive: string): Promise<void> {
  const { header, tag, size } = readHeader(file);
  const ivAt = MAGIC.length + SALT_BYTES;
  const salt = header.subarray(MAGIC.length, ivAt);
  const iv = header.subarray(ivAt, ivAt + IV_BYTES);
  const check = header.subarray(ivAt + IV_BYTES);
  const { key, checkKey } = await deriveKeys(passphrase, salt);
  if (!timingSafeEqual(check, checkOf(checkKey, salt, iv))) {
    throw new BackupRefused(
      `the passphrase does not open ${file} (BACKUP_PASSPHRASE must be the one it was made with)`,
    );
  }
  const decipher = createDecipheriv("aes-256-gcm", key, iv).setAAD(header).setAuthTag(tag);
  try {
    await pipeline(
      createReadStream(file, { start: HEADER_BYTES, end: size - TAG_BYTES - 1 }),
      decipher,
      createWriteStream(archive, { flags: "wx", mode: 0o600 }),
    );
  } catch (error) {
    rmSync(archive, { force: true });
    if ((error as Error).message.includes("authenticate")) {
      throw new BackupRefused(`${file} was changed or cut short since it was written: nothing restored`);
    }
    throw error;
  }
}
