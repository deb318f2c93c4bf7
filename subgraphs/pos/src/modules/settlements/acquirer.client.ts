import { Readable, Writable } from "node:stream";
import { Client } from "basic-ftp";

/** The acquirer's FTP server: `ftp://user:password@host:port/base` (or `ftps://`, explicit TLS). */
export interface AcquirerEndpoint {
  url: string;
  /** Per FTP command and transfer. */
  timeoutMs: number;
}

/** The URL with its password hidden, for logs and errors. */
export function shownUrl(url: string) {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(not a URL)";
  }
}

/** Checks an acquirer URL, for configuration: the problem, or undefined when it is usable. */
export function acquirerUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a URL";
  }
  if (parsed.protocol !== "ftp:" && parsed.protocol !== "ftps:") return "must be an ftp:// or ftps:// URL";
  if (!parsed.username || !parsed.password) return "must carry the user and password: ftp://user:password@host:port/";
  return undefined;
}

/**
 * One session with the acquirer: log in, upload the day's card transactions, download its settlement file. The
 * connection is closed whatever happens; `signal` closes it at once (the process is stopping).
 */
export async function exchangeWithAcquirer(
  endpoint: AcquirerEndpoint,
  files: { upload: string; content: string; report: string },
  signal?: AbortSignal,
): Promise<string> {
  const url = new URL(endpoint.url);
  const base = url.pathname.replace(/\/+$/, "");
  const client = new Client(endpoint.timeoutMs);
  const abort = () => client.close();
  signal?.addEventListener("abort", abort, { once: true });
  try {
    await client.access({
      host: url.hostname,
      port: url.port ? Number(url.port) : 21,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      secure: url.protocol === "ftps:",
    });
    await client.uploadFrom(Readable.from([Buffer.from(files.content, "utf8")]), `${base}/${files.upload}`);
    const chunks: Buffer[] = [];
    await client.downloadTo(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      }),
      `${base}/${files.report}`,
    );
    return Buffer.concat(chunks).toString("utf8");
  } finally {
    signal?.removeEventListener("abort", abort);
    client.close();
  }
}
