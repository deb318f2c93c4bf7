import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { openApiDocument, type RestRoute } from "@pos-cloud/rest-compat";

const require = createRequire(import.meta.url);

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>POS cloud platform API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<redoc spec-url="/openapi.json"></redoc>
<script src="/docs/assets/redoc.standalone.js"></script>
</body>
</html>
`;

/**
 * Redoc's page runs only the platform's own script and reads only `/openapi.json`; styled-components writes its
 * styles inline and Redoc's search runs in a worker made from a `blob:` URL. No other site may frame it (a framed
 * reference with "Try it" links is a clickjacking surface): `frame-ancestors` for today's browsers, `X-Frame-Options`
 * for older ones.
 */
const pageHeaders = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-frame-options": "DENY",
};

/**
 * Redoc's sidebar shows Redocly's logo from Redocly's CDN, which would tell a third party who reads the reference and
 * from where, and which the policy blocks (a violation on every load): the served bundle shows an empty image
 * instead, beside the "API docs by Redocly" link, which stays.
 */
const REDOCLY_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const EMPTY_IMAGE = "data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27/%3E";

/**
 * The API reference the edge serves: `/openapi.json`, built from the routes and the supergraph when the edge starts,
 * and `/docs`, Redoc's page over it, whose script the platform serves itself (no CDN).
 */
export function createApiReference(routes: RestRoute[], supergraphSdl: string) {
  const document = JSON.stringify(openApiDocument(routes, supergraphSdl));
  let script: Buffer | undefined;
  const files: Record<string, () => { type: string; body: string | Buffer; headers?: Record<string, string> }> = {
    "/openapi.json": () => ({ type: "application/json; charset=utf-8", body: document }),
    "/docs": () => ({ type: "text/html; charset=utf-8", body: page, headers: pageHeaders }),
    "/docs/assets/redoc.standalone.js": () => {
      script ??= Buffer.from(
        readFileSync(require.resolve("redoc/bundles/redoc.standalone.js"), "utf8").replace(REDOCLY_LOGO, EMPTY_IMAGE),
      );
      return { type: "text/javascript; charset=utf-8", body: script };
    },
  };
  return {
    paths: Object.keys(files),
    /** Answers a GET of one of `paths`; false for any other request. */
    serve(pathname: string, method: string, res: ServerResponse): boolean {
      const file = files[pathname];
      if (!file || (method !== "GET" && method !== "HEAD")) return false;
      const { type, body, headers } = file();
      res.writeHead(200, {
        "content-type": type,
        "content-length": Buffer.byteLength(body),
        "cache-control": "public, max-age=300",
        ...headers,
      });
      res.end(method === "HEAD" ? undefined : body);
      return true;
    },
  };
}

export type ApiReference = ReturnType<typeof createApiReference>;
