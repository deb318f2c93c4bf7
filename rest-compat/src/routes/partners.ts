import { operationRoute as route } from "../operation-route";
import {
  ClientPartnerApiKeysDocument,
  ClientPartnerDocument,
  ClientPartnersDocument,
  CreateClientPartnerDocument,
  DeactivateClientPartnerDocument,
  IssueApiKeyDocument,
  RevokeApiKeyDocument,
} from "../operations/gateway.generated";
import { integerParam, pageParams } from "../params";
import type { RestRoute } from "../router";

const id = (params: Record<string, string>) => integerParam(params.id, "id") ?? Number.NaN;

/**
 * Client partners and their API keys, for system operators (payments `partners` module). DELETE deactivates a
 * partner or revokes a key, as DELETE deactivates merchants and stores: the record stays, answered as it now is.
 */
export const partnerRoutes: RestRoute[] = [
  route("GET", "/api/v1/partners", "clientPartners", ClientPartnersDocument, ({ query }) => pageParams(query), {
    page: true,
  }),
  route(
    "POST",
    "/api/v1/partners",
    "createClientPartner",
    CreateClientPartnerDocument,
    ({ body }) => ({
      input: body.fields,
    }),
    { status: 201 },
  ),
  route("GET", "/api/v1/partners/:id", "clientPartner", ClientPartnerDocument, ({ params }) => ({ id: id(params) })),
  route("DELETE", "/api/v1/partners/:id", "deactivateClientPartner", DeactivateClientPartnerDocument, ({ params }) => ({
    id: id(params),
  })),
  route("GET", "/api/v1/partners/:id/api-keys", "clientPartnerApiKeys", ClientPartnerApiKeysDocument, ({ params }) => ({
    client_partner_id: id(params),
  })),
  route(
    "POST",
    "/api/v1/partners/:id/api-keys",
    "issueApiKey",
    IssueApiKeyDocument,
    ({ params }) => ({
      client_partner_id: id(params),
    }),
    { status: 201 },
  ),
  route("DELETE", "/api/v1/partners/:id/api-keys/:key_id", "revokeApiKey", RevokeApiKeyDocument, ({ params }) => ({
    client_partner_id: id(params),
    id: params.key_id ?? "",
  })),
];
