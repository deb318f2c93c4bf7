import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError, assertJsonDepth, logger, REQUEST_ID_HEADER } from "@pos-cloud/common";
import { assertUtf8Form } from "./params";

export const MAX_BODY_BYTES = 1024 * 1024;

export interface RequestBody {
  /** The bytes as sent: signatures (HMAC, provider webhooks) are computed over them. */
  raw: Buffer;
  /** The parsed JSON or form fields; `{}` when the body is empty. */
  fields: unknown;
}

/**
 * Reads and parses a request body: JSON (nested at most `MAX_JSON_DEPTH` levels, so nothing after has to walk
 * deeper) or form-encoded, at most 1 MiB, anything else a clear 4xx.
 */
export async function readBody(req: IncomingMessage): Promise<RequestBody> {
  return parseBody(req.headers, await readRawBody(req));
}

/** A request body's bytes, at most 1 MiB: what a signature is checked over before the body is parsed. */
export async function readRawBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    // The client closed the connection before sending its whole body: a client's doing, not the platform's error.
    if (req.destroyed && !(error instanceof AppError))
      throw new AppError("invalid_request", "the connection closed before the request body ended", {
        constraint: "body_incomplete",
      });
    throw error;
  }
  return Buffer.concat(chunks);
}

/** A body's bytes parsed by its content type: JSON or form-encoded, anything else a clear 4xx. */
export function parseBody(headers: IncomingMessage["headers"], raw: Buffer): RequestBody {
  if (raw.length === 0) return { raw, fields: {} };
  const type = (headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json" || type.endsWith("+json")) {
    let fields: unknown;
    try {
      fields = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new AppError("invalid_request", "the request body is not valid JSON", { constraint: "json" });
    }
    assertJsonDepth(fields);
    return { raw, fields };
  }
  if (type === "application/x-www-form-urlencoded") {
    const text = raw.toString("utf8");
    assertUtf8Form(text);
    return { raw, fields: Object.fromEntries(new URLSearchParams(text)) };
  }
  throw new AppError("unsupported_media_type", "send the body as application/json", {
    constraint: "content_type",
    received: type || null,
  });
}

const tooLarge = () =>
  new AppError("payload_too_large", `the request body exceeds ${MAX_BODY_BYTES} bytes`, { limit: MAX_BODY_BYTES });

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * A body written as it is produced, at the pace the client reads it. Once the status is sent an error can no longer
 * be answered: the connection is cut, so the client sees an incomplete body rather than a complete-looking one.
 */
export function sendStream(
  res: ServerResponse,
  status: number,
  chunks: AsyncIterable<string>,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, headers);
  pipeline(Readable.from(chunks), res).catch((error: unknown) => {
    logger.error("a streamed answer failed", { request_id: res.getHeader(REQUEST_ID_HEADER), error });
  });
}

/** The one error shape of every REST face: `{code, message, details}`. */
export function sendError(res: ServerResponse, error: unknown, headers: Record<string, string> = {}) {
  if (error instanceof AppError) {
    const { allowed } = error.details;
    // A 405 names the methods the path has (RFC 9110 §15.5.6); the router puts them in the details.
    const allow: Record<string, string> =
      error.code === "method_not_allowed" && Array.isArray(allowed) ? { allow: allowed.join(", ") } : {};
    sendJson(
      res,
      error.status,
      { code: error.code, message: error.message, details: error.details },
      {
        ...headers,
        ...allow,
      },
    );
    return;
  }
  logger.error("unhandled error", { request_id: res.getHeader(REQUEST_ID_HEADER), error });
  sendJson(res, 500, { code: "internal_error", message: "internal error", details: {} }, headers);
}
