import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { httpServerOptions, logger } from "@pos-cloud/common";
import { authenticate, type MerchantAccount } from "./auth";
import { SandboxError, sandboxErrors } from "./errors";
import { payPage } from "./pay-page";
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

/** The sandbox's API: `/v1/payments...` for merchants (signed), `/sandbox/...` and `/pay/...` for the customer. */
export function createSandboxServer(deps: ServerDeps): Server {
  const view = (transaction: SandboxTransaction) => transactionView(transaction, deps.publicUrl());

  function merchantRoute(request: Request, account: MerchantAccount, parts: string[]): Reply | undefined {
    const [, , , id, action] = parts;
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
    if (parts[1] === "v1" && parts[2] === "payments" && parts.length <= 5) {
      const account = authenticate(deps.accounts, request.req.headers, {
        method: request.method,
        path: request.path,
        body: request.raw,
        nowMs: deps.now(),
      });
      return merchantRoute(request, account, parts);
    }
    const [, area, resource, id, action] = parts;
    if (area === "sandbox" && resource === "transactions" && id && action === "pay" && request.method === "POST")
      return { status: 200, body: view(deps.book.pay(id)) };
    if (area === "pay" && resource && parts.length === 3) {
      if (request.method === "GET") return { status: 200, html: payPage(view(deps.book.get(undefined, resource))) };
      if (request.method === "POST") {
        payFromPage(resource);
        return { status: 303, location: `/pay/${resource}` };
      }
    }
    return undefined;
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
