import { operationRoute as route } from "../operation-route";
import { integerParam, pageParams } from "../params";
import type { RestRoute } from "../router";

const pspFields = "id code name contact_email contact_phone status created_at updated_at";
const merchantFields = `id psp_id code name legal_name contact_email contact_phone address tax_id logo_url branding
  payment_config default_payment_methods has_provider_credentials receipt_template invoice_config
  settlement_frequency terminal_limit_per_store status created_at updated_at`;
export const storeFields = `id merchant_id code name address contact_email contact_phone latitude longitude
  operating_hours payment_config printer_config receipt_settings enabled_payment_methods has_provider_credentials
  receipt_delivery tax_rate table_assignments status created_at updated_at`;

const id = (params: Record<string, string>) => integerParam(params.id, "id") ?? Number.NaN;

export const tenantRoutes: RestRoute[] = [
  route(
    "GET",
    "/api/v1/psps",
    "psps",
    `query Psps($limit: Int, $offset: Int) { psps(limit: $limit, offset: $offset) { nodes { ${pspFields} } } }`,
    ({ query }) => pageParams(query),
    { page: true },
  ),
  route(
    "POST",
    "/api/v1/psps",
    "createPsp",
    `mutation CreatePsp($input: CreatePspInput!) { createPsp(input: $input) { ${pspFields} } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/merchants",
    "merchants",
    `query Merchants($psp_id: Int, $limit: Int, $offset: Int) {
      merchants(psp_id: $psp_id, limit: $limit, offset: $offset) { nodes { ${merchantFields} } } }`,
    ({ query }) => ({ psp_id: integerParam(query.get("psp_id"), "psp_id"), ...pageParams(query) }),
    { page: true },
  ),
  route(
    "POST",
    "/api/v1/merchants",
    "createMerchant",
    `mutation CreateMerchant($input: CreateMerchantInput!) { createMerchant(input: $input) { ${merchantFields} } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/merchants/:id",
    "merchant",
    `query Merchant($id: Int!) { merchant(id: $id) { ${merchantFields} } }`,
    ({ params }) => ({ id: id(params) }),
  ),
  route(
    "PATCH",
    "/api/v1/merchants/:id",
    "updateMerchant",
    `mutation UpdateMerchant($id: Int!, $input: UpdateMerchantInput!) { updateMerchant(id: $id, input: $input) { ${merchantFields} } }`,
    ({ params, body }) => ({ id: id(params), input: body.fields }),
  ),
  route(
    "DELETE",
    "/api/v1/merchants/:id",
    "deactivateMerchant",
    `mutation DeactivateMerchant($id: Int!) { deactivateMerchant(id: $id) { ${merchantFields} } }`,
    ({ params }) => ({ id: id(params) }),
  ),
  route(
    "GET",
    "/api/v1/stores",
    "stores",
    `query Stores($merchant_id: Int, $limit: Int, $offset: Int) {
      stores(merchant_id: $merchant_id, limit: $limit, offset: $offset) { nodes { ${storeFields} } } }`,
    ({ query }) => ({ merchant_id: integerParam(query.get("merchant_id"), "merchant_id"), ...pageParams(query) }),
    { page: true },
  ),
  route(
    "POST",
    "/api/v1/stores",
    "createStore",
    `mutation CreateStore($input: CreateStoreInput!) { createStore(input: $input) { ${storeFields} } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/stores/:id",
    "store",
    `query StoreDetail($id: Int!) { store(id: $id) { ${storeFields} } }`,
    ({ params }) => ({ id: id(params) }),
  ),
  route(
    "PATCH",
    "/api/v1/stores/:id",
    "updateStore",
    `mutation UpdateStore($id: Int!, $input: UpdateStoreInput!) { updateStore(id: $id, input: $input) { ${storeFields} } }`,
    ({ params, body }) => ({ id: id(params), input: body.fields }),
  ),
  route(
    "DELETE",
    "/api/v1/stores/:id",
    "deactivateStore",
    `mutation DeactivateStore($id: Int!) { deactivateStore(id: $id) { ${storeFields} } }`,
    ({ params }) => ({ id: id(params) }),
  ),
];
