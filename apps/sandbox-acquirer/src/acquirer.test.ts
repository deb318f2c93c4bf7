import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { temporaryDirectory } from "@pos-cloud/test-support/environment";
import { Client, type FTPError } from "basic-ftp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedAcquirerControl, readAcquirerSettings, startEmbeddedAcquirer } from "./embedded";

const header = "Transaction ID,Date,Time,Amount,Approval Code,Status";

describe("the sandbox acquirer over FTP", () => {
  const dir = temporaryDirectory("acquirer-");
  let acquirer: Awaited<ReturnType<typeof startEmbeddedAcquirer>>;
  const clients: Client[] = [];

  async function connect(password = acquirer.account.password) {
    const client = new Client(5000);
    clients.push(client);
    await client.access({ host: "127.0.0.1", port: acquirer.port, user: acquirer.account.username, password });
    return client;
  }
  const upload = (client: Client, path: string, text: string) => client.uploadFrom(Readable.from([text]), path);
  async function download(client: Client, path: string) {
    const chunks: Buffer[] = [];
    await client.downloadTo(
      new Writable({
        write(chunk, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      }),
      path,
    );
    return Buffer.concat(chunks).toString("utf8");
  }
  const refusal = (work: Promise<unknown>) =>
    work.then(
      () => undefined,
      (error: unknown) => error as FTPError,
    );

  beforeAll(async () => {
    acquirer = await startEmbeddedAcquirer({ dataDir: dir.path, host: "127.0.0.1" });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await acquirer?.close();
    dir.remove();
  });

  it("keeps its account on disk, readable by its owner only, with its address", () => {
    const settings = readAcquirerSettings(dir.path)!;
    expect(settings.account).toEqual(acquirer.account);
    expect(settings.ftpUrl).toBe(acquirer.ftpUrl);
    expect(acquirer.ftpUrl).toMatch(/^ftp:\/\/pos-cloud:[\w-]+@127\.0\.0\.1:\d+\/$/);
    expect(statSync(join(dir.path, "sandbox-acquirer", "config.json")).mode & 0o777).toBe(0o600);
  });

  it("takes an upload into the merchant's folder and serves its settlement file, fees rounded down", async () => {
    const client = await connect();
    const file = [
      header,
      "pay-1,2026-11-24,12:00:01,2684,A1B2C3,captured",
      "pay-2,2026-11-24,13:10:00,1013,D4E5F6,captured",
      "ref-1,2026-11-24,14:00:00,684,A1B2C3,refunded",
    ].join("\r\n");
    await upload(client, "/42/upload/card_transactions_7_20261124.csv", `${file}\r\n`);
    expect(
      readFileSync(join(acquirer.stateDir, "files", "42", "upload", "card_transactions_7_20261124.csv"), "utf8"),
    ).toBe(`${file}\r\n`);
    // 1013 ends in 13: declined, left out. Sales 2684, refunds 684: gross 2000; fee floor(2684 * 3.24%) = 86.
    expect(await download(client, "/42/settlement/settlement_7_20261124.csv")).toBe(
      "Merchant ID,Date,Transaction Count,Gross Amount,Fees,Net Amount\r\n42,2026-11-24,2,2000,86,1914\r\n",
    );
  });

  it("refuses a file in the wrong place or of the wrong shape with 550, and keeps nothing of it", async () => {
    const client = await connect();
    for (const [path, text, says] of [
      ["/42/card_transactions_7_20261124.csv", `${header}\r\n`, "uploads go whole"],
      ["/42/upload/notes.txt", `${header}\r\n`, "uploads go whole"],
      ["/42/upload/card_transactions_7_20261125.csv", "Id,Amount\r\n", "line 1 must be the header"],
      [
        "/42/upload/card_transactions_7_20261126.csv",
        `${header}\r\npay-1,2026-11-26,12:00,100,A1,captured\r\n`,
        "Time",
      ],
      [
        "/42/upload/card_transactions_7_20261127.csv",
        `${header}\r\npay-1,2026-11-27,12:00:00,100,A1,voided\r\n`,
        "Status",
      ],
    ] as const) {
      const error = await refusal(upload(client, path, text));
      expect(error?.code, path).toBe(550);
      expect(error?.message).toContain(says);
    }
    for (const day of ["20261125", "20261126", "20261127"]) {
      expect(existsSync(join(acquirer.stateDir, "files", "42", "upload", `card_transactions_7_${day}.csv`))).toBe(
        false,
      );
      expect(existsSync(join(acquirer.stateDir, "files", "42", "settlement", `settlement_7_${day}.csv`))).toBe(false);
    }
    const missing = await refusal(download(client, "/42/settlement/settlement_9_20261124.csv"));
    expect(missing?.code).toBe(551);
    expect(missing?.message).not.toContain(dir.path);
    expect((await refusal(client.remove("/42/upload/card_transactions_7_20261124.csv")))?.code).toBe(550);
  });

  it("names only the merchant's path when a file or folder is missing, never the server's", async () => {
    const client = await connect();
    const missing = "/42/settlement/nothing-here.csv";
    const asks = [
      () => client.size(missing),
      () => client.lastMod(missing),
      () => client.list("/42/nowhere"),
      () => client.cd("/42/nowhere"),
    ];
    for (const ask of asks) {
      const error = await refusal(ask());
      expect(error?.code).toBeGreaterThanOrEqual(450);
      expect(error?.message).toMatch(/no file or folder \/42\/(settlement\/nothing-here\.csv|nowhere)/);
      expect(error?.message).not.toContain(dir.path);
    }
  });

  it("refuses a wrong password, and the next logins its control says to refuse", async () => {
    expect((await refusal(connect("not-the-password")))?.code).toBe(530);
    const control = embeddedAcquirerControl(dir.path);
    control.refuseNextLogins(2);
    expect((await refusal(connect()))?.code).toBe(530);
    expect((await refusal(connect()))?.code).toBe(530);
    expect(control.refusedLoginsLeft()).toBe(0);
    const client = await connect();
    expect(await client.pwd()).toBe("/");
  });
});
