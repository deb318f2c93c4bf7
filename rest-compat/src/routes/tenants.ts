import { operationRoute as route } from "../operation-route";
import {
  CreateMerchantDocument,
  CreatePspDocument,
  CreateStoreDocument,
  DeactivateMerchantDocument,
  DeactivateStoreDocument,
  MerchantDocument,
  MerchantsDocument,
  PspsDocument,
  StoreDetailDocument,
  StoresDocument,
  UpdateMerchantDocument,
  UpdateStoreDocument,
} from "../operations/gateway.generated";
import { integerParam, pageParams } from "../params";
import type { RestRoute } from "../router";

const id = (params: Record<string, string>) => integerParam(params.id, "id") ?? Number.NaN;

export const tenantRoutes: RestRoute[] = [
  route("GET", "/api/v1/psps", "psps", PspsDocument, ({ query }) => pageParams(query), { page: true }),
  route("POST", "/api/v1/psps", "createPsp", CreatePspDocument, ({ body }) => ({ input: body.fields }), {
    status: 201,
  }),
  route(
    "GET",
    "/api/v1/merchants",
    "merchants",
    MerchantsDocument,
    ({ query }) => ({ psp_id: integerParam(query.get("psp_id"), "psp_id"), ...pageParams(query) }),
    { page: true },
  ),
  route("POST", "/api/v1/merchants", "createMerchant", CreateMerchantDocument, ({ body }) => ({ input: body.fields }), {
    status: 201,
  }),
  route("GET", "/api/v1/merchants/:id", "merchant", MerchantDocument, ({ params }) => ({ id: id(params) })),
  route("PATCH", "/api/v1/merchants/:id", "updateMerchant", UpdateMerchantDocument, ({ params, body }) => ({
    id: id(params),
    input: body.fields,
  })),
  route("DELETE", "/api/v1/merchants/:id", "deactivateMerchant", DeactivateMerchantDocument, ({ params }) => ({
    id: id(params),
  })),
  route(
    "GET",
    "/api/v1/stores",
    "stores",
    StoresDocument,
    ({ query }) => ({ merchant_id: integerParam(query.get("merchant_id"), "merchant_id"), ...pageParams(query) }),
    { page: true },
  ),
  route("POST", "/api/v1/stores", "createStore", CreateStoreDocument, ({ body }) => ({ input: body.fields }), {
    status: 201,
  }),
  route("GET", "/api/v1/stores/:id", "store", StoreDetailDocument, ({ params }) => ({ id: id(params) })),
  route("PATCH", "/api/v1/stores/:id", "updateStore", UpdateStoreDocument, ({ params, body }) => ({
    id: id(params),
    input: body.fields,
  })),
  route("DELETE", "/api/v1/stores/:id", "deactivateStore", DeactivateStoreDocument, ({ params }) => ({
    id: id(params),
  })),
];
