import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { httpServerOptions, logger } from "@pos-cloud/common";
import { authenticate, type MerchantAccount } from "./auth";
import { SandboxError, sandboxErrors } from "./errors";
import { payPage } from "./pay-page";
import { paypayApi, paypayFault } from "./paypay";
import type { QrMode, SandboxTransaction, TransactionBook } from "./transactions";

const MAX_BODY_BYTES = 64 * 1024;

export interface ServerDeps {
  accounts: readonly MerchantAccount[];
  book: TransactionBook;
  /** The address customers' phones open: QR contents point at `<publicUrl>/pay/<transaction_id>`. */
  publicUrl: () => string;
  now: () => number;
}

interface Request {
  method: string;
  path: string;
  raw: string;
  form: URLSearchParams | undefined;
  json: Record<string, unknown>;
  req: IncomingMessage;
}

/**
 * A failure the next merchant calls meet (`POST /sandbox/faults`), in either protocol: a wait before the call is
 * handled (a provider that answers too late, having done the work), and/or a 5xx answer instead of handling it.
 */
interface Fault {
  status?: number;
  delay_ms?: number;
  times: number;
}

function faultInput(body: Record<string, unknown>): Fault {
  const { status, delay_ms, times = 1 } = body;
  const validStatus =
    status === undefined || (Number.isInteger(status) && (status as number) >= 500 && (status as number) <= 599);
  const validDelay =
    delay_ms === undefined ||
    (Number.isInteger(delay_ms) && (delay_ms as number) >= 0 && (delay_ms as number) <= 60_000);
  const validTimes = Number.isInteger(times) && (times as number) >= 1 && (times as number) <= 100;
  if (!validStatus || !validDelay || !validTimes || (status === undefined && delay_ms === undefined))
    throw sandboxErrors.invalidRequest("a fault is a status (500-599) and/or delay_ms (0-60000), for 1-100 calls");
  return { status: status as number | undefined, delay_ms: delay_ms as number | undefined, times: times as number };
}

/** `POST /sandbox/transactions/{id}/override`: `{status: "paid"}` and/or `{refund_amount}`, a positive integer. */
function overrideInput(body: Record<string, unknown>): { status?: "paid"; refund_amount?: number } {
  const { status, refund_amount } = body;
  const validStatus = status === undefined || status === "paid";
  const validRefund =
    refund_amount === undefined || (Number.isSafeInteger(refund_amount) && (refund_amount as number) > 0);
  if (!validStatus || !validRefund || (status === undefined && refund_amount === undefined))
    throw sandboxErrors.invalidRequest('an override is status "paid" and/or a positive refund_amount');
  return { status: status as "paid" | undefined, refund_amount: refund_amount as number | undefined };
}

type Reply = { status: number; body: unknown } | { status: number; html: string } | { status: 303; location: string };

async function readRequest(req: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw sandboxErrors.invalidRequest("the body is too large");
    chunks.push(chunk);
  }
  const raw = Buffer.concat(chunks).toString("utf8");
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim();
  const request = { method: req.method ?? "GET", path: req.url ?? "/", raw, req, json: {}, form: undefined };
  if (type === "application/x-www-form-urlencoded") return { ...request, form: new URLSearchParams(raw) };
  if (raw.length === 0) return request;
  try {
    const json = JSON.parse(raw) as unknown;
    if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not an object");
    return { ...request, json: json as Record<string, unknown> };
  } catch {
    throw sandboxErrors.invalidRequest("the body must be a JSON object");
  }
}

function positiveAmount(value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0)
    throw sandboxErrors.invalidRequest("amount must be a positive integer in minor units");
  return value;
}

function createInput(body: Record<string, unknown>, account: MerchantAccount) {
  const { currency, reference, mode = "mpm", notify_url, expires_in_seconds } = body;
  if (typeof currency !== "string" || !/^[A-Z]{3}$/.test(currency))
    throw sandboxErrors.invalidRequest("currency must be an ISO 4217 code");
  if (typeof reference !== "string" || reference.length === 0 || reference.length > 255)
    throw sandboxErrors.invalidRequest("reference must be 1 to 255 characters");
  if (mode !== "mpm" && mode !== "cpm") throw sandboxErrors.invalidRequest("mode must be mpm or cpm");
  if (notify_url !== undefined && (typeof notify_url !== "string" || !/^https?:\/\/\S+$/.test(notify_url)))
    throw sandboxErrors.invalidRequest("notify_url must be an http(s) URL");
  if (
    expires_in_seconds !== undefined &&
    (typeof expires_in_seconds !== "number" ||
      !Number.isInteger(expires_in_seconds) ||
      expires_in_seconds < 1 ||
      expires_in_seconds > 86_400)
  )
    throw sandboxErrors.invalidRequest("expires_in_seconds must be an integer from 1 to 86400");
  return {
    amount: positiveAmount(body.amount),
    currency,
    reference,
    mode: mode as QrMode,
    // A polling account has no notifications at all, whatever the request says.
    notify_url: account.delivery === "webhook" ? ((notify_url as string | undefined) ?? null) : null,
    expires_in_seconds: expires_in_seconds as number | undefined,
  };
}

export function transactionView(transaction: SandboxTransaction, publicUrl: string) {
  const { settles_at: _settlesAt, merchant_id: _merchantId, ...visible } = transaction;
  return { ...visible, qr_content: `${publicUrl}/pay/${transaction.transaction_id}` };
}

/** `GET /v1/payments?created_from=&created_to=` (ISO times): a merchant's transactions created in that window. */
function listRoute(
  deps: ServerDeps,
  account: MerchantAccount,
  path: string,
  view: (transaction: SandboxTransaction) => unknown,
): Reply {
  const query = new URL(path, "http://sandbox").searchParams;
  const [from, to] = [Date.parse(query.get("created_from") ?? ""), Date.parse(query.get("created_to") ?? "")];
  if (Number.isNaN(from) || Number.isNaN(to) || from >= to || to - from > 31 * 86_400_000)
    throw sandboxErrors.invalidRequest("created_from and created_to are ISO times, in order, at most 31 days apart");
  return { status: 200, body: { data: deps.book.list(account.merchant_id, from, to).map(view) } };
}

/** The faults waiting for the next merchant calls, in order. */
function faultQueue() {
  const faults: Fault[] = [];

  /** The next call's fault, if any: waits first; a status answers in the protocol's error shape. */
  async function meetFault(protocol: "sandbox" | "paypay"): Promise<Reply | undefined> {
    const fault = faults[0];
    if (!fault) return undefined;
    if (--fault.times === 0) faults.shift();
    if (fault.delay_ms) await new Promise((resolve) => setTimeout(resolve, fault.delay_ms));
    if (fault.status === undefined) return undefined;
    if (protocol === "paypay") return { ...paypayFault(fault.status), status: fault.status };
    return { status: fault.status, body: { error: { code: "unavailable", message: "the sandbox failed as told" } } };
  }

  return {
    meetFault,
    addFault: (fault: Fault) => faults.push(fault),
  };
}

function send(res: ServerResponse, reply: Reply) {
  if ("location" in reply) {
    res.writeHead(303, { location: reply.location });
    res.end();
  } else if ("html" in reply) {
    res.writeHead(reply.status, { "content-type": "text/html; charset=utf-8" });
    res.end(reply.html);
  } else {
    res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(reply.body));
  }
}

/** The sandbox's API: `/v1/payments...` for merchants (signed), `/sandbox/...` and `/pay/...` for the customer. */
export function createSandboxServer(deps: ServerDeps): Server {
  const view = (transaction: SandboxTransaction) => transactionView(transaction, deps.publicUrl());
  const paypay = paypayApi(deps);
  const { meetFault, addFault } = faultQueue();
  function merchantRoute(request: Request, account: MerchantAccount, parts: string[]): Reply | undefined {
    const [, , , id, action] = parts;
    if (request.method === "GET" && parts.length === 3) return listRoute(deps, account, request.path, view);
    if (request.method === "POST" && parts.length === 3) {
      const key = request.req.headers["idempotency-key"];
      const input = createInput(request.json, account);
      const transaction = deps.book.create(account.merchant_id, input, typeof key === "string" ? key : undefined);
      return { status: 201, body: view(transaction) };
    }
    if (!id) return undefined;
    if (request.method === "GET" && parts.length === 4)
      return { status: 200, body: view(deps.book.get(account.merchant_id, id)) };
    if (request.method === "POST" && action === "cancel")
      return { status: 200, body: view(deps.book.cancel(account.merchant_id, id)) };
    if (request.method === "POST" && action === "refunds") {
      const key = request.req.headers["idempotency-key"];
      const { transaction, refund } = deps.book.refund(
        account.merchant_id,
        id,
        positiveAmount(request.json.amount),
        typeof key === "string" ? key : undefined,
      );
      return { status: 201, body: { ...refund, status: "succeeded", transaction: view(transaction) } };
    }
    return undefined;
  }

  /** A second tap, or a tap on an expired code, just shows the page again with the status that stopped it. */
  function payFromPage(id: string) {
    try {
      deps.book.pay(id);
    } catch (error) {
      if (!(error instanceof SandboxError && error.status === 409)) throw error;
    }
  }

  async function route(request: Request): Promise<Reply | undefined> {
    const url = new URL(request.path, "http://sandbox");
    const parts = url.pathname.split("/");
    if (request.method === "GET" && url.pathname === "/health") return { status: 200, body: { status: "ok" } };
    if (parts[1] === "v2") return (await meetFault("paypay")) ?? paypay.handle(request);
    if (parts[1] === "v1" && parts[2] === "payments" && parts.length <= 5) {
      const failed = await meetFault("sandbox");
      if (failed) return failed;
      const account = authenticate(deps.accounts, request.req.headers, {
        method: request.method,
        path: request.path,
        body: request.raw,
        nowMs: deps.now(),
      });
      return merchantRoute(request, account, parts);
    }
    const [, area, resource, id, action] = parts;
    if (area === "sandbox" && resource === "faults" && parts.length === 3 && request.method === "POST") {
      return { status: 201, body: { faults: addFault(faultInput(request.json)) } };
    }
    if (area === "sandbox" && resource === "transactions" && id && action === "pay" && request.method === "POST")
      return { status: 200, body: view(deps.book.pay(id)) };
    if (area === "sandbox" && resource === "transactions" && id && action === "override" && request.method === "POST")
      return { status: 200, body: view(deps.book.override(id, overrideInput(request.json))) };
    if (area === "pay" && resource && parts.length === 3) {
      if (request.method === "GET") return { status: 200, html: payPage(view(deps.book.get(undefined, resource))) };
      if (request.method === "POST") {
        payFromPage(resource);
        return { status: 303, location: `/pay/${resource}` };
      }
    }
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    try {
      const reply = await route(await readRequest(req));
      send(res, reply ?? { status: 404, body: { error: { code: "not_found", message: "no such endpoint" } } });
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      send(res, { status: error.status, body: { error: { code: error.code, message: error.message } } });
    }
  }

  return createServer(httpServerOptions(), (req, res) => {
    handle(req, res).catch((error) => {
      logger.error("sandbox provider: unhandled error", { error });
      if (res.headersSent) res.destroy();
      else send(res, { status: 500, body: { error: { code: "internal_error", message: "internal error" } } });
    });
  });
}
