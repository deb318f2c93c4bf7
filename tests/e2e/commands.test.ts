import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { type Caller, repositoryRoot } from "@pos-cloud/common";
import { readMigrations } from "@pos-cloud/common/storage";
import { openPortal } from "@pos-cloud/portal";
import { afterAll, describe, expect, it } from "vitest";
import { whileNoOtherBuild } from "../support/build-lock";
import { temporaryDirectory } from "../support/environment";

/** A child's stdout and stderr as one text, and a wait for a line in it; rejects if the child ends first. */
function watchOutput(child: ChildProcess) {
  let output = "";
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk;
    for (const waiter of waiters) waiter();
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  return {
    text: () => output,
    waitFor: (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!output.includes(text)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        child.once("close", () => reject(new Error(`ended before printing "${text}":\n${output}`)));
        check();
      }),
  };
}

/** Whether something accepts TCP connections at this address and port. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, host, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });

/**
 * `npm start` in a process group of its own, stopped with Ctrl-C's signal; resolves once its banner is printed. On a
 * fresh clone it builds first, as no other test may at the same time.
 */
const startPlatformProcess = (env: NodeJS.ProcessEnv) => whileNoOtherBuild(() => startPlatformProcessNow(env));

async function startPlatformProcessNow(env: NodeJS.ProcessEnv) {
  // The operator's port on a free port too: 4001 may be another checkout's.
  const child = spawn("npm", ["start", "--silent"], {
    cwd: repositoryRoot,
    env: { ADMIN_PORT: "0", ...env },
    detached: true,
  });
  const output = watchOutput(child);
  // Every pipe closed: npm and the platform under it have exited, and all they wrote has been read.
  let ended = false;
  const closed = new Promise<void>((resolve) =>
    child.once("close", () => {
      ended = true;
      resolve();
    }),
  );
  const kill = () => {
    if (!ended) process.kill(-child.pid!, "SIGKILL");
  };
  try {
    // The banner is printed once the edge listens and the demo tenant is written.
    await output.waitFor("Ctrl-C stops.");
  } catch (error) {
    kill();
    throw error;
  }
  const port = Number(/health +http:\/\/127\.0\.0\.1:(\d+)\/health/.exec(output.text())?.[1]);
  return {
    port,
    output,
    /** Ctrl-C in a terminal signals the whole process group: npm and the platform under it. */
    interrupt: async () => {
      process.kill(-child.pid!, "SIGINT");
      await closed;
    },
    kill,
  };
}

describe("npm start", () => {
  const dir = temporaryDirectory();
  const productionDir = temporaryDirectory();
  afterAll(() => {
    dir.remove();
    productionDir.remove();
  });

  it(
    "listens on 127.0.0.1 by default, serves /health, prints the banner, writes demo.json and stops cleanly on Ctrl-C",
    { timeout: 120_000 },
    async () => {
      const { HOST: _host, ...env } = process.env;
      // Port 0: the system picks a free port and the banner names it, so no other test can take it in between.
      const platform = await startPlatformProcess({ ...env, PORT: "0", DATA_DIR: dir.path });
      const { port, output } = platform;
      try {
        expect(output.text()).toContain(`http://127.0.0.1:${port}/graphql`);
        expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
        // The development mailbox is on in the demo, for system operators only.
        expect((await fetch(`http://127.0.0.1:${port}/api/v1/dev/messages`)).status).toBe(401);
        const external = Object.values(networkInterfaces())
          .flat()
          .find((address) => address && !address.internal && address.family === "IPv4");
        if (external) expect(await accepts(external.address, port)).toBe(false);
        expect(existsSync(join(dir.path, "demo.json"))).toBe(true);
        await platform.interrupt();
        expect(output.text()).toContain("SIGINT: stopping");
        expect(output.text()).toContain("stopped");
        expect(output.text()).not.toMatch(/did not stop|Error/);
      } finally {
        platform.kill();
      }
    },
  );

  it(
    "has no development mailbox under NODE_ENV=production, even with the demo tenant on",
    { timeout: 120_000 },
    async () => {
      const { HOST: _host, DEV_MAILBOX: _mailbox, ...env } = process.env;
      const platform = await startPlatformProcess({
        ...env,
        PORT: "0",
        DATA_DIR: productionDir.path,
        NODE_ENV: "production",
        DEMO: "on",
      });
      try {
        const base = `http://127.0.0.1:${platform.port}`;
        expect(existsSync(join(productionDir.path, "demo.json"))).toBe(true);
        const response = await fetch(`${base}/api/v1/dev/messages`);
        expect(response.status).toBe(404);
        expect(await response.json()).toMatchObject({ code: "not_found" });
        await platform.interrupt();
      } finally {
        platform.kill();
      }
    },
  );

  it("refuses invalid configuration, listing every problem", async () => {
    const { code, output } = await whileNoOtherBuild(async () => {
      const child = spawn("npm", ["start", "--silent"], {
        cwd: repositoryRoot,
        env: { ...process.env, PORT: "not-a-port", DEMO: "maybe", DATA_DIR: dir.path },
      });
      let output = "";
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk;
      });
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      return { code, output };
    });
    expect(code).toBe(1);
    expect(output).toMatch(/PORT/);
    expect(output).toMatch(/DEMO/);
  });
});

/** An npm command to its end: its exit code and its stdout and stderr as one text. */
const runCommand = (args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn("npm", args, { cwd: repositoryRoot, env: { ...process.env, ...env } });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk;
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("exit", (code) => resolve({ code, output }));
  });

describe("npm run db:migrate and npm run audit", () => {
  const dir = temporaryDirectory();
  afterAll(() => dir.remove());

  it(
    "brings every subgraph's database to its newest migration, and is a no-op the second time",
    { timeout: 120_000 },
    async () => {
      const run = () => runCommand(["run", "--silent", "db:migrate"], { DATA_DIR: dir.path });
      const first = await run();
      expect(first.code).toBe(0);
      const logLines = first.output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line));
      // A new database is a copy of the installation's migrated one: created at the newest migration, none applied.
      const newest = readMigrations(join(repositoryRoot, "prisma", "portal", "migrations")).at(-1)!.name;
      expect(logLines).toContainEqual(
        expect.objectContaining({ message: "database created", subgraph: "portal", migration: newest }),
      );
      expect(first.output).toMatch(/payments: up to date/);
      const second = await run();
      expect(second.code).toBe(0);
      expect(second.output).not.toMatch(/database created|migrations applied/);
    },
  );

  // On the storage the test above migrated, as a user runs it: no MASTER_KEY, the key in DATA_DIR/master.key as npm start
  // leaves it. Verify holds on the untouched log, then names what the probe did (every hash set to NULL), which it
  // used to read as records older than the chain (each attack by itself: audit-chain.rules.test.ts).
  it(
    "npm run audit -- verify reads the key beside the data, and names hashes set to NULL",
    { timeout: 120_000 },
    async () => {
      const masterKey = randomBytes(32);
      writeFileSync(join(dir.path, "master.key"), `${masterKey.toString("hex")}\n`, { mode: 0o600 });
      const portal = await openPortal({ dataDir: dir.path, masterKey });
      const platform: Caller = { type: "service", id: "platform", scopes: [] };
      for (const event of ["user.login", "user.logout", "user.login"] as const)
        await portal.audit.record({ event, user_id: null, success: true }, platform);
      await portal.close();
      const verify = () =>
        runCommand(["run", "--silent", "audit", "--", "verify"], { DATA_DIR: dir.path, MASTER_KEY: undefined });
      expect(await verify()).toEqual({ code: 0, output: "audit chain holds: 3 records\n" });

      const tampering = await openPortal({ dataDir: dir.path, masterKey });
      const [first] = await tampering.db.query<{ id: string }>("SELECT id FROM audit_log WHERE seq = 1");
      await tampering.db.exec(
        "ALTER TABLE audit_log DISABLE TRIGGER USER; UPDATE audit_log SET hash = NULL, prev_hash = NULL; " +
          "ALTER TABLE audit_log ENABLE TRIGGER USER",
      );
      await tampering.close();
      const verified = await verify();
      expect(verified.code).toBe(1);
      expect(verified.output).toContain(
        `audit chain broken at seq 1 (record ${first!.id}): unhashed record inside the chain: its hash was removed`,
      );
    },
  );
});

// A backup holds the master key and every database: without a passphrase the command writes nothing (the encrypted
// backup and its restore, through the running platform: platform.test.ts).
describe("npm run backup", () => {
  const dir = temporaryDirectory();
  afterAll(() => dir.remove());

  it("refuses to write a backup without BACKUP_PASSPHRASE, and says what to set", { timeout: 60_000 }, async () => {
    const file = join(dir.path, "unencrypted.backup");
    const run = await runCommand(["run", "--silent", "backup", "--", file], {
      DATA_DIR: join(dir.path, "data"),
      BACKUP_PASSPHRASE: undefined,
    });
    expect(run).toEqual({
      code: 2,
      output:
        "the backup needs BACKUP_PASSPHRASE (at least 12 characters): backups are encrypted with it, and a restore " +
        "needs the one the backup was made with (docs/operations.md, Backups)\n",
    });
    expect(existsSync(file)).toBe(false);
  });
});
