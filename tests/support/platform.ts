import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "otplib";
import { it } from "vitest";
import type { DemoFile, DemoUser } from "../../apps/platform/src/demo";
import type { PlatformConfig } from "../../apps/platform/src/environment";
import { startPlatform } from "../../apps/platform/src/platform";
import { startClusterTestPlatform } from "./cluster-platform";
import { checkContractOf } from "./contract";
import { isolatedStorage, seedEmbeddedStorage } from "./databases";
import { clusterWiring, onPostgres, subgraphNames, temporaryDirectory } from "./environment";
import type { TestPlatform, TestPlatformOptions } from "./platform-handle";

export type { TestPlatform, TestPlatformOptions };

/**
 * A test that needs the platform in its own process (a clock it moves, a bus of its own): skipped under
 * TEST_WIRING=cluster. Say why in a comment where it is used.
 */
export const inProcessOnly = it.skipIf(clusterWiring);

/**
 * The embedded platform on a free port, with storage of its own; under TEST_WIRING=cluster the cluster's processes
 * instead (a `clock` and a `bus` stay in this process and reach none of them: see `inProcessOnly`).
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const platform = clusterWiring ? await startClusterTestPlatform(options) : await startEmbeddedPlatform(options);
  const unchecked = checkContractOf(platform);
  const close = platform.close;
  platform.close = () => {
    unchecked();
    return close();
  };
  return platform;
}

async function startEmbeddedPlatform(options: TestPlatformOptions): Promise<TestPlatform> {
  const dir = temporaryDirectory();
  const databases = await isolatedStorage([...subgraphNames]);
  if (!onPostgres) await seedEmbeddedStorage(dir.path);
  const { demo, clock, bus, ...gateway } = options;
  const config: PlatformConfig = {
    ...gateway,
    port: 0,
    host: "127.0.0.1",
    admin: { port: 0, host: "127.0.0.1" },
    dataDir: dir.path,
    demo: demo ?? true,
    databaseUrls: databases.urls,
  };
  let running: Awaited<ReturnType<typeof startPlatform>> | undefined = await startPlatform(config, { clock, bus });
  const handle: TestPlatform = {
    baseUrl: running.baseUrl,
    adminUrl: running.adminUrl,
    dataDir: dir.path,
    portal: running.portal,
    partners: running.partners,
    config,
    payments: running.payments,
    pos: running.pos,
    bus: running.bus,
    jobs: running.jobs,
    async stop() {
      await running?.close();
      running = undefined;
    },
    async restart() {
      running = await startPlatform(config, { clock });
      handle.baseUrl = running.baseUrl;
      handle.adminUrl = running.adminUrl;
      handle.portal = running.portal;
      handle.partners = running.partners;
      handle.payments = running.payments;
      handle.pos = running.pos;
      handle.bus = running.bus;
      handle.jobs = running.jobs;
    },
    async close() {
      await handle.stop();
      await databases.drop();
      dir.remove();
    },
  };
  return handle;
}

export async function postGraphQL(
  baseUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
) {
  const response = await fetch(`${baseUrl}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: any[] } };
}

export const readDemo = (dataDir: string): DemoFile => JSON.parse(readFileSync(join(dataDir, "demo.json"), "utf8"));

export const demoUser = (demo: DemoFile, role: DemoUser["role"]) => demo.users.find((user) => user.role === role)!;

/** GETs a REST path; returns the status, the headers and the parsed body. */
export async function getJson(baseUrl: string, path: string, token?: string) {
  const response = await fetch(`${baseUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** Calls a REST path with a bearer token and an optional JSON body; returns the status and the parsed body (or null). */
export async function callJson(baseUrl: string, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json().catch(() => null)) as any };
}

/**
 * Whether four requests sent at once all answer as `accept` wants: each takes a connection of its own, which the
 * cluster wiring's edge instances share out, so a revocation heard by one instance only is not taken for all.
 */
export async function everyEdgeAnswers<T>(request: () => Promise<T>, accept: (answer: T) => boolean) {
  return (await Promise.all([1, 2, 3, 4].map(request))).every(accept);
}

/** POSTs JSON to a REST path; returns the status and the parsed body (null for 204). */
export async function postJson(baseUrl: string, path: string, body: unknown, token?: string) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: response.status === 204 ? null : ((await response.json()) as any) };
}

/** The README's walkthrough: password login, then the TOTP code (or a PIN login for L5 and L6); returns tokens. */
export async function logIn(baseUrl: string, user: DemoUser, at: Date = new Date()) {
  if (user.pin) {
    const { status, body } = await postJson(baseUrl, "/api/v1/auth/user/pin-login", {
      login_id: user.login_id,
      pin: user.pin,
    });
    if (status !== 200) throw new Error(`PIN login failed: ${JSON.stringify(body)}`);
    return body as { access_token: string; refresh_token: string; expires_in: number };
  }
  const login = await postJson(baseUrl, "/api/v1/auth/user/login", {
    login_id: user.login_id,
    password: user.password,
  });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  const code = await generate({ secret: user.totp_secret!, epoch: Math.floor(at.getTime() / 1000) });
  const { status, body } = await postJson(baseUrl, "/api/v1/auth/user/mfa/verify", {
    user_id: login.body.user_id,
    code,
  });
  if (status !== 200) throw new Error(`MFA failed: ${JSON.stringify(body)}`);
  return body as { access_token: string; refresh_token: string; expires_in: number };
}
