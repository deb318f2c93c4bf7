import { operationRoute as route } from "../operation-route";
import { integerParam, pageParams } from "../params";
import type { RestRoute } from "../router";

export const deviceFields = `id serial_number client_id merchant_id store_id public_key_jwk status model manufacturer
  activated_at last_connected_at battery_level paper_status latitude longitude config created_at updated_at`;

/** A mutation of one terminal; with `inputType`, it takes the request body as its `input`. */
const terminalMutation = (name: string, inputType?: string) =>
  inputType
    ? `mutation ${name}($id: ID!, $input: ${inputType}!) { ${name}(id: $id, input: $input) { ${deviceFields} } }`
    : `mutation ${name}($id: ID!) { ${name}(id: $id) { ${deviceFields} } }`;

export const deviceRoutes: RestRoute[] = [
  route(
    "GET",
    "/api/v1/stores/:id/devices",
    "storeDevices",
    `query StoreDevices($store_id: Int!, $limit: Int, $offset: Int) {
      storeDevices(store_id: $store_id, limit: $limit, offset: $offset) { nodes { ${deviceFields} } } }`,
    ({ params, query }) => ({ store_id: integerParam(params.id, "id"), ...pageParams(query) }),
    { page: true },
  ),
  route(
    "GET",
    "/api/v1/terminals",
    "terminals",
    `query Terminals($store_id: Int, $status: DeviceStatus, $limit: Int, $offset: Int) {
      terminals(store_id: $store_id, status: $status, limit: $limit, offset: $offset) { nodes { ${deviceFields} } } }`,
    ({ query }) => ({
      store_id: integerParam(query.get("store_id"), "store_id"),
      status: query.get("status"),
      ...pageParams(query),
    }),
    { page: true },
  ),
  route(
    "POST",
    "/api/v1/terminals",
    "registerTerminal",
    `mutation RegisterTerminal($input: RegisterTerminalInput!) { registerTerminal(input: $input) { ${deviceFields} } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/terminals/:id",
    "terminal",
    `query Terminal($id: ID!) { terminal(id: $id) { ${deviceFields} } }`,
    ({ params }) => ({ id: params.id }),
  ),
  route(
    "PATCH",
    "/api/v1/terminals/:id",
    "updateTerminal",
    terminalMutation("updateTerminal", "UpdateTerminalInput"),
    (r) => ({
      id: r.params.id,
      input: r.body.fields,
    }),
  ),
  route("POST", "/api/v1/terminals/:id/suspend", "suspendTerminal", terminalMutation("suspendTerminal"), (r) => ({
    id: r.params.id,
  })),
  route("POST", "/api/v1/terminals/:id/resume", "resumeTerminal", terminalMutation("resumeTerminal"), (r) => ({
    id: r.params.id,
  })),
  route(
    "POST",
    "/api/v1/terminals/:id/transfer",
    "transferTerminal",
    terminalMutation("transferTerminal", "TransferTerminalInput"),
    (r) => ({
      id: r.params.id,
      input: r.body.fields,
    }),
  ),
  route("DELETE", "/api/v1/terminals/:id", "decommissionTerminal", terminalMutation("decommissionTerminal"), (r) => ({
    id: r.params.id,
  })),
  route(
    "POST",
    "/api/v1/device/provision/generateActivationCode",
    "generateActivationCode",
    `mutation GenerateActivationCode($input: GenerateActivationCodeInput!) {
      generateActivationCode(input: $input) { activation_code expires_at } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "POST",
    "/api/v1/device/provision/activate",
    "activateDevice",
    `mutation ActivateDevice($input: ActivateDeviceInput!) { activateDevice(input: $input) { ${deviceFields} } }`,
    ({ body }) => ({ input: body.fields }),
  ),
  route(
    "GET",
    "/api/v1/device/provision/activationStatus",
    "activationStatus",
    `query ActivationStatus($activation_code: String!) {
      activationStatus(activation_code: $activation_code) { status device_id client_id merchant_id store_id } }`,
    ({ query }) => ({ activation_code: query.get("activation_code") ?? "" }),
  ),
];
