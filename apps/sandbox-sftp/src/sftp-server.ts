import { timingSafeEqual } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { type FileHandle, open, rename, rm, stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join, posix } from "node:path";
import { logger } from "@pos-cloud/common";
import ssh2, { type AuthContext, type Connection, type SFTPWrapper } from "ssh2";

const { OPEN_MODE, STATUS_CODE } = ssh2.utils.sftp;

/** The one login the sandbox takes: its password, or the private key whose public half it holds. */
export interface SftpAccount {
  username: string;
  password: string;
  /** The client's public key, OpenSSH format (`ecdsa-sha2-nistp256 AAAA…`). */
  publicKey: string;
}

/** A file that reached its final name on the server. */
export interface ReceivedFile {
  path: string;
  size: number;
  at: string;
}

/** What a test or an operator tells the running sandbox, kept in `stateDir/control.json`. */
export function sftpControl(stateDir: string) {
  const path = join(stateDir, "control.json");
  const read = (): { refuse_uploads: number } =>
    existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : { refuse_uploads: 0 };
  const write = (control: { refuse_uploads: number }) => {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(path, `${JSON.stringify(control)}\n`);
  };
  const log = join(stateDir, "received.jsonl");
  return {
    refuseNextUploads: (count: number) => write({ ...read(), refuse_uploads: Math.max(0, Math.floor(count)) }),
    refusedUploadsLeft: () => read().refuse_uploads,
    /** Takes one refusal if any is left. */
    takeRefusal() {
      const control = read();
      if (control.refuse_uploads <= 0) return false;
      write({ ...control, refuse_uploads: control.refuse_uploads - 1 });
      return true;
    },
    recordReceived: (file: ReceivedFile) => appendFileSync(log, `${JSON.stringify(file)}\n`),
    /** Every file that reached its final name, in order (a file delivered twice is listed twice). */
    received: (): ReceivedFile[] =>
      existsSync(log)
        ? readFileSync(log, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line) as ReceivedFile)
        : [],
  };
}

const same = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/** Whether a login is the account's: its password, or its key with a valid signature. */
function accepts(account: SftpAccount, context: AuthContext): boolean {
  if (context.username !== account.username) return false;
  if (context.method === "password") return same(Buffer.from(context.password), Buffer.from(account.password));
  if (context.method !== "publickey") return false;
  const allowed = ssh2.utils.parseKey(account.publicKey);
  if (allowed instanceof Error || Array.isArray(allowed)) return false;
  if (context.key.algo !== allowed.type || !same(context.key.data, allowed.getPublicSSH())) return false;
  // Without a signature the client only asks whether the key would do; the login itself is signed.
  return !context.signature || allowed.verify(context.blob!, context.signature, context.hashAlgo) === true;
}

export interface RunningSftp {
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The sandbox SFTP server (a merchant's accounting server): one account, by password or key; files under
 * `stateDir/files/`; an upload is refused while the control says so; every file renamed into place is recorded.
 */
export async function startSftpServer(options: {
  host: string;
  port?: number;
  stateDir: string;
  hostKey: string;
  account: SftpAccount;
}): Promise<RunningSftp> {
  const root = join(options.stateDir, "files");
  mkdirSync(root, { recursive: true });
  const control = sftpControl(options.stateDir);
  const server = new ssh2.Server({ hostKeys: [options.hostKey] }, (client: Connection) => {
    client.on("authentication", (context) => {
      if (accepts(options.account, context)) return context.accept();
      context.reject(["password", "publickey"]);
    });
    client.on("ready", () => {
      client.on("session", (accept) => {
        accept().on("sftp", (acceptSftp) => serveFiles(acceptSftp(), root, control));
      });
    });
    client.on("error", (error) => logger.warn("sandbox sftp: a client's connection failed", { error: error.message }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    host: options.host,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A client path inside the root, or null when it would leave it. */
function localPath(root: string, path: string): string | null {
  const normal = posix.normalize(posix.join("/", path));
  return normal.includes("\0") ? null : join(root, normal);
}

/** The SFTP requests an upload needs: open for writing, write, close, stat, rename, remove, realpath. */
function serveFiles(sftp: SFTPWrapper, root: string, control: ReturnType<typeof sftpControl>) {
  const handles = new Map<string, FileHandle>();
  let next = 0;
  const fail = (id: number, code = STATUS_CODE.FAILURE, message?: string) => sftp.status(id, code, message);
  const run = (id: number, work: () => Promise<void>) =>
    work().catch((error: NodeJS.ErrnoException) =>
      fail(id, error.code === "ENOENT" ? STATUS_CODE.NO_SUCH_FILE : STATUS_CODE.FAILURE, error.message),
    );

  sftp.on("OPEN", (id, path, flags) => {
    const local = localPath(root, path);
    if (!local) return fail(id, STATUS_CODE.PERMISSION_DENIED);
    if (flags & OPEN_MODE.WRITE && control.takeRefusal())
      return fail(id, STATUS_CODE.PERMISSION_DENIED, "upload refused: the server is not taking files now");
    run(id, async () => {
      const file = await open(local, flags & OPEN_MODE.WRITE ? "w" : "r");
      const handle = Buffer.alloc(4);
      handle.writeUInt32BE(next++);
      handles.set(handle.toString("hex"), file);
      sftp.handle(id, handle);
    });
  });
  sftp.on("WRITE", (id, handle, offset, data) => {
    const file = handles.get(handle.toString("hex"));
    if (!file) return fail(id);
    run(id, async () => {
      await file.write(data, 0, data.length, offset);
      sftp.status(id, STATUS_CODE.OK);
    });
  });
  sftp.on("CLOSE", (id, handle) => {
    const key = handle.toString("hex");
    const file = handles.get(key);
    if (!file) return fail(id);
    handles.delete(key);
    run(id, async () => {
      await file.close();
      sftp.status(id, STATUS_CODE.OK);
    });
  });
  const statOf = (id: number, path: string) => {
    const local = localPath(root, path);
    if (!local) return fail(id, STATUS_CODE.PERMISSION_DENIED);
    run(id, async () => {
      const found = await stat(local);
      sftp.attrs(id, {
        mode: found.mode,
        uid: found.uid,
        gid: found.gid,
        size: found.size,
        atime: Math.floor(found.atimeMs / 1000),
        mtime: Math.floor(found.mtimeMs / 1000),
      });
    });
  };
  sftp.on("STAT", statOf);
  sftp.on("LSTAT", statOf);
  sftp.on("REALPATH", (id, path) => {
    const name = posix.normalize(posix.join("/", path));
    sftp.name(id, [{ filename: name, longname: name, attrs: {} as never }]);
  });
  sftp.on("REMOVE", (id, path) => {
    const local = localPath(root, path);
    if (!local) return fail(id, STATUS_CODE.PERMISSION_DENIED);
    run(id, async () => {
      await rm(local);
      sftp.status(id, STATUS_CODE.OK);
    });
  });
  sftp.on("RENAME", (id, from, to) => {
    const source = localPath(root, from);
    const target = localPath(root, to);
    if (!source || !target) return fail(id, STATUS_CODE.PERMISSION_DENIED);
    run(id, async () => {
      // As OpenSSH's server (SFTP version 3): a rename never replaces a file.
      if (existsSync(target)) return fail(id, STATUS_CODE.FAILURE, "the target exists");
      await rename(source, target);
      control.recordReceived({
        path: posix.normalize(posix.join("/", to)),
        size: (await stat(target)).size,
        at: new Date().toISOString(),
      });
      sftp.status(id, STATUS_CODE.OK);
    });
  });
}
