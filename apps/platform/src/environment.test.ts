import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadEdgeEnvironment } from "../../edge/src/environment";
import { loadEnvironment } from "./environment";

describe("the embedded platform's configuration", () => {
  afterEach(() => vi.restoreAllMocks());

  it("reads PAYMENT_PROVIDERS as a JSON list or @<file>, leaves it unset for the defaults, and refuses a bad one", () => {
    const providers = [{ code: "paypay", adapter: "paypay", options: { baseUrl: "https://api.paypay.ne.jp" } }];
    expect(loadEnvironment({}).paymentProviders).toBeUndefined();
    expect(loadEnvironment({ PAYMENT_PROVIDERS: JSON.stringify(providers) }).paymentProviders).toEqual(providers);
    const file = join(mkdtempSync(join(tmpdir(), "providers-")), "providers.json");
    writeFileSync(file, JSON.stringify(providers));
    expect(loadEnvironment({ PAYMENT_PROVIDERS: `@${file}` }).paymentProviders).toEqual(providers);
    rmSync(dirname(file), { recursive: true });
    const exit = vi.spyOn(process, "exit").mockImplementation(() => {
      throw new Error("exit");
    });
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const bad of [
      "[",
      "[]",
      '[{"code":"PayPay","adapter":"paypay"}]',
      '[{"code":"x","adapter":"../x"}]',
      "@/nowhere",
    ]) {
      expect(() => loadEnvironment({ PAYMENT_PROVIDERS: bad })).toThrow("exit");
    }
    expect(exit).toHaveBeenCalledTimes(5);
    expect(printed.mock.calls.flat().join("\n")).toMatch(/PAYMENT_PROVIDERS/);
  });

  it("listens on loopback only unless HOST says otherwise", () => {
    expect(loadEnvironment({}).host).toBe("127.0.0.1");
    expect(loadEnvironment({ HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
  });

  it("has the development mailbox with the demo and the sandbox mail server, and only when asked otherwise", () => {
    const mailServer = { SMTP_URL: "smtp://pos:secret@mail.example.com:587" };
    expect(loadEnvironment({}).devMailbox).toBe(true);
    expect(loadEnvironment({ DEMO: "off" }).devMailbox).toBe(false);
    expect(loadEnvironment(mailServer).devMailbox).toBe(false);
    expect(loadEnvironment({ DEV_MAILBOX: "off" }).devMailbox).toBe(false);
    expect(loadEnvironment({ DEMO: "off", DEV_MAILBOX: "on" }).devMailbox).toBe(true);
    expect(loadEnvironment({ NODE_ENV: "production", DEMO: "on" }).devMailbox).toBe(false);
  });

  it("refuses the mailbox in production", () => {
    const exit = vi.spyOn(process, "exit").mockImplementation(() => {
      throw new Error("exit");
    });
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => loadEnvironment({ DEV_MAILBOX: "on", NODE_ENV: "production" })).toThrow("exit");
    expect(exit).toHaveBeenCalledWith(1);
    expect(printed.mock.calls.flat().join("\n")).toMatch(/DEV_MAILBOX/);
  });

  it("refuses a mailbox that the configured mail server and relay would leave empty, and a relay without its secret", () => {
    const exit = vi.spyOn(process, "exit").mockImplementation(() => {
      throw new Error("exit");
    });
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    const configured = {
      SMTP_URL: "smtps://pos:secret@mail.example.com:465",
      SMS_RELAY_URL: "https://sms.example.com/messages",
      SMS_RELAY_SECRET: "a shared secret of the relay",
    };
    expect(loadEnvironment(configured).messages).toEqual({
      smtpUrl: configured.SMTP_URL,
      mailFrom: "POS Cloud <no-reply@pos-cloud.localhost>",
      sms: { url: configured.SMS_RELAY_URL, secret: configured.SMS_RELAY_SECRET },
    });
    expect(() => loadEnvironment({ DEV_MAILBOX: "on", ...configured })).toThrow("exit");
    expect(printed.mock.calls.join("")).toMatch(/DEV_MAILBOX/);
    expect(() => loadEnvironment({ SMS_RELAY_URL: configured.SMS_RELAY_URL })).toThrow("exit");
    expect(printed.mock.calls.join("")).toMatch(/SMS_RELAY_SECRET/);
    expect(() => loadEnvironment({ SMTP_URL: "https://mail.example.com" })).toThrow("exit");
    expect(printed.mock.calls.join("")).toMatch(/SMTP_URL/);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it("takes the card acquirer as an FTP URL with its account, and refuses one without", () => {
    expect(loadEnvironment({}).acquirerFtpUrl).toBeUndefined();
    const url = "ftp://merchant:s3cret@acquirer.example.com:2121/";
    expect(loadEnvironment({ ACQUIRER_FTP_URL: url }).acquirerFtpUrl).toBe(url);
    const exit = vi.spyOn(process, "exit").mockImplementation(() => {
      throw new Error("exit");
    });
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    for (const bad of ["ftp://acquirer.example.com/", "https://u:p@acquirer.example.com/"])
      expect(() => loadEnvironment({ ACQUIRER_FTP_URL: bad })).toThrow("exit");
    expect(exit).toHaveBeenCalledWith(1);
    expect(printed.mock.calls.join("")).toMatch(/ACQUIRER_FTP_URL/);
  });

  it("shows schema details (introspection, suggestions) unless NODE_ENV is production", () => {
    expect(loadEnvironment({}).graphqlSchemaDetails).toBe(true);
    expect(loadEnvironment({ NODE_ENV: "production" }).graphqlSchemaDetails).toBe(false);
  });

  it("reads the request limits per minute, the edge's cluster configuration the same way", () => {
    const limits = { RATE_LIMIT_MERCHANT: "5000", RATE_LIMIT_API: "2000", GRAPHQL_MAX_DEPTH: "8" };
    expect(loadEnvironment(limits).rateLimits).toEqual({ merchant: 5000, api: 2000 });
    const edge = loadEdgeEnvironment({ ...limits, INTERNAL_TOKEN: "x".repeat(32) });
    expect(edge.rateLimits).toEqual({ merchant: 5000, api: 2000 });
    expect(edge.graphqlLimits).toEqual({ maxDepth: 8 });
    expect(loadEnvironment({}).rateLimits).toEqual({});
  });

  it("reads the GraphQL limits, keeping the defaults for what is unset, and refuses nonsense", () => {
    const limits = loadEnvironment({
      GRAPHQL_MAX_DEPTH: "9",
      GRAPHQL_TIMEOUT_MS: "2000",
      GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION: "3",
      GRAPHQL_MAX_SUBSCRIPTIONS_PER_CALLER: "7",
    }).graphqlLimits;
    expect(limits).toMatchObject({
      maxDepth: 9,
      timeoutMs: 2000,
      maxSubscriptionsPerConnection: 3,
      maxSubscriptionsPerCaller: 7,
    });
    expect(limits?.maxCost).toBeUndefined();
    const exit = vi.spyOn(process, "exit").mockImplementation(() => {
      throw new Error("exit");
    });
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => loadEnvironment({ GRAPHQL_MAX_COST: "lots" })).toThrow("exit");
    expect(exit).toHaveBeenCalledWith(1);
    expect(printed.mock.calls.join("")).toMatch(/GRAPHQL_MAX_COST/);
  });

  it("keeps events in memory unless MESSAGING_DRIVER chooses NATS, at NATS_URL or the local server", () => {
    expect(loadEnvironment({}).messaging).toEqual({ driver: "memory" });
    expect(loadEnvironment({ MESSAGING_DRIVER: "nats" }).messaging).toEqual({
      driver: "nats",
      url: "nats://127.0.0.1:4222",
    });
    expect(loadEnvironment({ MESSAGING_DRIVER: "nats", NATS_URL: "nats://a:4222,nats://b:4222" }).messaging).toEqual({
      driver: "nats",
      url: "nats://a:4222,nats://b:4222",
    });
    const exit = vi.spyOn(process, "exit").mockImplementation(() => {
      throw new Error("exit");
    });
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => loadEnvironment({ MESSAGING_DRIVER: "kafka", NATS_URL: "http://x" })).toThrow("exit");
    expect(printed.mock.calls.join("")).toMatch(/MESSAGING_DRIVER[\s\S]*NATS_URL|NATS_URL[\s\S]*MESSAGING_DRIVER/);
    expect(exit).toHaveBeenCalledWith(1);
  });
});
