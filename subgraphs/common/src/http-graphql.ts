import type { IncomingMessage, ServerResponse } from "node:http";
import { type ApolloServer, type BaseContext, HeaderMap } from "@apollo/server";

/**
 * Runs one HTTP request through Apollo Server and writes its answer (streamed when it comes in parts). `body` is the
 * request's parsed JSON, read by the caller with its own limits.
 */
export async function serveHttpGraphQL<Context extends BaseContext>(
  server: ApolloServer<Context>,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  context: () => Promise<Context>,
) {
  const headers = new HeaderMap();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const response = await server.executeHTTPGraphQLRequest({
    httpGraphQLRequest: {
      method: req.method ?? "GET",
      headers,
      search: new URL(req.url ?? "/", "http://graphql").search,
      body,
    },
    context,
  });
  res.statusCode = response.status ?? 200;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  if (response.body.kind === "complete") {
    res.end(response.body.string);
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}
