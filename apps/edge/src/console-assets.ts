import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { AppError } from "@pos-cloud/common";
import sirv from "sirv";

export const CONSOLE_PATH = "/console";

/**
 * The console is a page of its own origin's API only: scripts, styles and connections to this edge alone (Mantine
 * sets inline styles; the activation QR code is an inline SVG).
 */
const contentSecurityPolicy =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

/**
 * The operator console's built files (`npm run build:console`, `apps/console/dist`) at `/console`: hashed assets
 * cached for good, every other path the app's page, whose router shows the route. Served gzipped when the build
 * left a `.gz` beside a file and the client accepts it.
 */
export function createConsoleAssets(dir: string) {
  const built = existsSync(join(dir, "index.html"));
  const serveFile =
    built &&
    sirv(dir, {
      single: true,
      gzip: true,
      setHeaders: (res, pathname) => {
        res.setHeader(
          "cache-control",
          pathname.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache",
        );
        res.setHeader("content-security-policy", contentSecurityPolicy);
      },
    });
  return {
    /** Answers a GET or HEAD under `/console`; false for any other request. */
    serve(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
      if (pathname !== CONSOLE_PATH && !pathname.startsWith(`${CONSOLE_PATH}/`)) return false;
      if (req.method !== "GET" && req.method !== "HEAD") return false;
      if (!serveFile) throw new AppError("service_unavailable", "the console is not built: run npm run build:console");
      // sirv reads the path from req.url; the access log reads it again when the answer ends.
      const url = req.url ?? "";
      const rest = url.slice(CONSOLE_PATH.length);
      req.url = rest.startsWith("/") ? rest : `/${rest}`;
      try {
        serveFile(req, res, () => {
          throw new AppError("not_found", `no console file at ${pathname}`);
        });
      } finally {
        req.url = url;
      }
      return true;
    },
  };
}

export type ConsoleAssets = ReturnType<typeof createConsoleAssets>;
