import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Writable } from "node:stream";
import { logger } from "@pos-cloud/common";
import { FileSystem, type FtpConnection } from "ftp-srv";
import {
  isoDay,
  MAX_UPLOAD_BYTES,
  parseUpload,
  RejectedFile,
  settle,
  settlementCsv,
  settlementName,
  uploadPattern,
} from "./settlement-file";

/** Writes a file whole or not at all: a reader never sees half of it. */
function writeWhole(path: string, content: string) {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  writeFileSync(partial, content);
  renameSync(partial, path);
}

/**
 * What a logged-in merchant sees of the acquirer's disk: every merchant's folder under `root`, readable; uploads only
 * to `/<merchant_id>/upload/card_transactions_<store_id>_<YYYYMMDD>.csv`, checked whole when they end. An accepted
 * upload is kept and answered at once with `/<merchant_id>/settlement/settlement_<store_id>_<YYYYMMDD>.csv`; a
 * refused one (550) leaves nothing. Nothing can be deleted, renamed or made.
 */
export class AcquirerFiles extends FileSystem {
  constructor(
    connection: FtpConnection,
    root: string,
    private readonly feeBasisPoints: number,
  ) {
    super(connection, { root, cwd: "/" });
  }

  override write(fileName: string, options: { append?: boolean; start?: unknown } = {}) {
    const { clientPath } = (this as unknown as FilesInternals)._resolvePath(fileName);
    const match = uploadPattern.exec(clientPath);
    if (!match || options.append || options.start)
      throw new Error("uploads go whole to /<merchant_id>/upload/card_transactions_<store_id>_<YYYYMMDD>.csv");
    const [, merchantId, storeId, day] = match as unknown as [string, string, string, string];
    const root = this.root;
    const feeBasisPoints = this.feeBasisPoints;
    const chunks: Buffer[] = [];
    let size = 0;
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > MAX_UPLOAD_BYTES) return done(new RejectedFile(`an upload may hold ${MAX_UPLOAD_BYTES} bytes`));
        chunks.push(chunk);
        done();
      },
      final(done) {
        try {
          const text = Buffer.concat(chunks).toString("utf8");
          const line = settle(merchantId, isoDay(day), parseUpload(text), feeBasisPoints);
          writeWhole(join(root, clientPath), text);
          writeWhole(join(root, merchantId, "settlement", settlementName(storeId, day)), settlementCsv(line));
          done();
        } catch (error) {
          logger.warn("sandbox acquirer: upload refused", { file: clientPath, reason: String(error) });
          done(error instanceof Error ? error : new Error(String(error)));
        }
      },
    });
    // ftp-srv ends an upload by emitting `close` on the stream when it has listeners (as its own file system does).
    stream.once("close", () => stream.end());
    return { stream, clientPath };
  }

  override read(fileName: string, options: { start?: unknown } = {}) {
    return this.quietly(fileName, () => super.read(fileName, options));
  }

  override get(fileName: string) {
    return this.quietly(fileName, () => super.get(fileName));
  }

  override list(path = ".") {
    return this.quietly(path, () => super.list(path));
  }

  override chdir(path = ".") {
    return this.quietly(path, () => super.chdir(path));
  }

  /** A failure names the merchant's path only: the server's own (`stat '/home/...'`) says nothing about its disk. */
  private quietly<T>(path: string, work: () => Promise<T>): Promise<T> {
    const { clientPath } = (this as unknown as FilesInternals)._resolvePath(path);
    return Promise.resolve()
      .then(work)
      .catch(() => {
        throw new Error(`no file or folder ${clientPath}`);
      });
  }

  override delete(): Promise<never> {
    return Promise.reject(new Error("files cannot be deleted"));
  }

  override mkdir(): Promise<never> {
    return Promise.reject(new Error("folders are made by the acquirer"));
  }

  override rename(): Promise<never> {
    return Promise.reject(new Error("files cannot be renamed"));
  }

  override chmod(): Promise<never> {
    return Promise.reject(new Error("permissions are the acquirer's"));
  }
}

/** ftp-srv's path resolution, which its type declarations leave out: confined to the root. */
interface FilesInternals {
  _resolvePath(path: string): { clientPath: string; fsPath: string };
}
