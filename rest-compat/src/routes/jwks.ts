import { runOperation } from "../graphql";
import { JwksDocument } from "../operations/gateway.generated";
import type { RestRoute } from "../router";

/** The public keys that verify human (RS256) and device (ES256) tokens, overlap keys included. */
export const jwksRoutes: RestRoute[] = (["human", "device"] as const).map((purpose) => ({
  method: "GET",
  path: `/api/v1/jwks/${purpose}`,
  alsoUnprefixed: true,
  doc: { operation: JwksDocument, field: "jwks", status: 200, variables: () => ({ purpose }), anonymous: true },
  async handle({ caller }, execute) {
    const data = await runOperation(execute, JwksDocument, { purpose }, caller);
    return { status: 200, body: data.jwks, headers: { "cache-control": "public, max-age=300" } };
  },
}));
