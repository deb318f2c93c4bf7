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
</head>
<body>
<redoc spec-url="/openapi.json"></redoc>
<script src="/docs/assets/redoc.standalone.js"></script>
</body>
</html>
`;

/**
 * The API reference the edge serves: `/openapi.json`, built from the routes and the supergraph when the edge starts,
 * and `/docs`, Redoc's page over it, whose script the platform serves itself (no CDN).
 */
export function createApiReference(routes: RestRoute[], supergraphSdl: string) {
  const document = JSON.stringify(openApiDocument(routes, supergraphSdl));
  let script: Buffer | undefined;
  const files: Record<string, () => { type: string; body: string | Buffer }> = {
    "/openapi.json": () => ({ type: "application/json; charset=utf-8", body: document }),
    "/docs": () => ({ type: "text/html; charset=utf-8", body: page }),
    "/docs/assets/redoc.standalone.js": () => {
      script ??= readFileSync(require.resolve("redoc/bundles/redoc.standalone.js"));
      return { type: "text/javascript; charset=utf-8", body: script };
    },
  };
  return {
    paths: Object.keys(files),
    /** Answers a GET of one of `paths`; false for any other request. */
    serve(pathname: string, method: string, res: ServerResponse): boolean {
      const file = files[pathname];
      if (!file || (method !== "GET" && method !== "HEAD")) return false;
      const { type, body } = file();
      res.writeHead(200, {
        "content-type": type,
        "content-length": Buffer.byteLength(body),
        "cache-control": "public, max-age=300",
      });
      res.end(method === "HEAD" ? undefined : body);
      return true;
    },
  };
}

export type ApiReference = ReturnType<typeof createApiReference>;
