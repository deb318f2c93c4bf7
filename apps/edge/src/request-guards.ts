import { maxHeaderSize, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { AppError, assertStorableText } from "@pos-cloud/common";
import { assertUtf8Form, type RequestBody } from "@pos-cloud/rest-compat";

/**
 * On every response: no MIME sniffing, and no caching, since most answers hold a token, a secret or payment data
 * (RFC 6749 §5.1 for token responses); a route whose answer is public (JWKS) sets its own Cache-Control.
 */
export const securityHeaders = { "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store" };

/**
 * Text PostgreSQL cannot store (NUL, lone surrogates, also as a query string's escapes that are no UTF-8) in a path
 * parameter, the query string or the body is refused here, once for every route, with the field it was in.
 */
export function assertStorableRequest(params: Record<string, string>, url: URL, body: RequestBody) {
  assertStorableText(params);
  assertUtf8Form(url.search);
  for (const [name, value] of url.searchParams) assertStorableText({ [name]: value });
  assertStorableText(body.fields);
}

/**
 * Requests Node's HTTP parser refuses (an over-long URL or header block, malformed HTTP, a timeout) never reach
 * a handler; they are answered here in the same error format, and the connection is closed.
 */
export function refuseClientError(error: NodeJS.ErrnoException, socket: Duplex) {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal =
    error.code === "HPE_HEADER_OVERFLOW"
      ? new AppError("headers_too_large", `the URL and headers exceed ${maxHeaderSize} bytes`, {
          limit: maxHeaderSize,
        })
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? new AppError("request_timeout", "the request was not received in time")
        : new AppError("invalid_request", "the request is not valid HTTP", { constraint: "http" });
  socket.end(rawErrorResponse(refusal));
}

/**
 * A whole HTTP/1.1 answer in the error format, written on a socket Node's HTTP server does not answer for us (a
 * request its parser refused, a connection over the caps); the connection closes after it.
 */
export function rawErrorResponse(refusal: AppError, headers: Record<string, string> = {}): string {
  const body = JSON.stringify({ code: refusal.code, message: refusal.message, details: refusal.details });
  const head = [
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries({ ...securityHeaders, ...headers }).map(([name, value]) => `${name}: ${value}`),
    "Connection: close",
  ];
  return `${head.join("\r\n")}\r\n\r\n${body}`;
}
