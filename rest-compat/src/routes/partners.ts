import { operationRoute as route } from "../operation-route";
import {
  ClientPartnerApiKeysDocument,
  ClientPartnerDocument,
  ClientPartnerGrantsDocument,
  ClientPartnersDocument,
  CreateClientPartnerDocument,
  DeactivateClientPartnerDocument,
  GrantPartnerDocument,
  IssueApiKeyDocument,
  MerchantPartnerGrantsDocument,
  OwnPartnerGrantsDocument,
  RevokeApiKeyDocument,
  RevokePartnerGrantDocument,
} from "../operations/gateway.generated";
import { integerParam, pageParams } from "../params";
import type { RestRoute } from "../router";

const id = (params: Record<string, string>) => integerParam(params.id, "id") ?? Number.NaN;

/**
 * Client partners and their API keys, for system operators, and the grants that let a partner act on a merchant's
 * stores, for L0 to L2 within their reach (payments `partners` module). DELETE deactivates a partner or revokes a key
 * or a grant, as DELETE deactivates merchants and stores: the record stays, answered as it now is.
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
    ({ params, body }) => ({
      client_partner_id: id(params),
      input: body.fields,
    }),
    { status: 201 },
  ),
  route("DELETE", "/api/v1/partners/:id/api-keys/:key_id", "revokeApiKey", RevokeApiKeyDocument, ({ params }) => ({
    client_partner_id: id(params),
    id: params.key_id ?? "",
  })),
  route(
    "GET",
    "/api/v1/partners/:id/grants",
    "clientPartnerGrants",
    ClientPartnerGrantsDocument,
    ({ params, query }) => ({ client_partner_id: id(params), ...pageParams(query) }),
    { page: true },
  ),
  route("GET", "/v1/grants", "ownPartnerGrants", OwnPartnerGrantsDocument, ({ query }) => pageParams(query), {
    auth: "hmac",
    page: true,
  }),
  route(
    "GET",
    "/api/v1/merchants/:id/grants",
    "merchantPartnerGrants",
    MerchantPartnerGrantsDocument,
    ({ params, query }) => ({ merchant_id: id(params), ...pageParams(query) }),
    { page: true },
  ),
  route(
    "POST",
    "/api/v1/partners/:id/grants",
    "grantPartner",
    GrantPartnerDocument,
    ({ params, body }) => ({ client_partner_id: id(params), input: body.fields }),
    { status: 201 },
  ),
  route(
    "DELETE",
    "/api/v1/partners/:id/grants/:grant_id",
    "revokePartnerGrant",
    RevokePartnerGrantDocument,
    ({ params }) => ({
      client_partner_id: id(params),
      id: params.grant_id ?? "",
    }),
  ),
];
