import { operationRoute as route } from "../operation-route";
import {
  ActivateDeviceDocument,
  ActivationStatusDocument,
  DecommissionTerminalDocument,
  GenerateActivationCodeDocument,
  IssueActivationCodeDocument,
  RegisterDeviceDocument,
  RegisterTerminalDocument,
  ResumeTerminalDocument,
  StoreDevicesDocument,
  SuspendTerminalDocument,
  TerminalDocument,
  TerminalsDocument,
  TransferTerminalDocument,
  UpdateTerminalDocument,
} from "../operations/gateway.generated";
import { integerParam, pageParams } from "../params";
import type { RestRequest, RestRoute } from "../router";

const terminal = ({ params }: RestRequest) => ({ id: params.id });
/** The request body is the mutation's `input`. */
const input = ({ body }: RestRequest) => ({ input: body.fields });
/** A terminal's registration: its code beside what it says of itself, in one flat body. */
const registration = ({ body }: RestRequest) => {
  if (!body.fields || typeof body.fields !== "object" || Array.isArray(body.fields)) return { input: body.fields };
  const { activation_code, ...device } = body.fields as Record<string, unknown>;
  return { activation_code, input: device };
};
/** A change of one terminal: the request body is the mutation's `input`. */
const terminalChange = ({ params, body }: RestRequest) => ({ id: params.id, input: body.fields });

export const deviceRoutes: RestRoute[] = [
  route(
    "GET",
    "/api/v1/stores/:id/devices",
    "storeDevices",
    StoreDevicesDocument,
    ({ params, query }) => ({ store_id: integerParam(params.id, "id"), ...pageParams(query) }),
    { page: true },
  ),
  route(
    "GET",
    "/api/v1/terminals",
    "terminals",
    TerminalsDocument,
    ({ query }) => ({
      store_id: integerParam(query.get("store_id"), "store_id"),
      status: query.get("status"),
      ...pageParams(query),
    }),
    { page: true },
  ),
  route("POST", "/api/v1/terminals", "registerTerminal", RegisterTerminalDocument, input, {
    status: 201,
  }),
  route("GET", "/api/v1/terminals/:id", "terminal", TerminalDocument, terminal),
  route("PATCH", "/api/v1/terminals/:id", "updateTerminal", UpdateTerminalDocument, terminalChange),
  route("POST", "/api/v1/terminals/:id/suspend", "suspendTerminal", SuspendTerminalDocument, terminal),
  route("POST", "/api/v1/terminals/:id/resume", "resumeTerminal", ResumeTerminalDocument, terminal),
  route("POST", "/api/v1/terminals/:id/transfer", "transferTerminal", TransferTerminalDocument, terminalChange),
  route("DELETE", "/api/v1/terminals/:id", "decommissionTerminal", DecommissionTerminalDocument, terminal),
  route(
    "POST",
    "/api/v1/device/provision/generateActivationCode",
    "generateActivationCode",
    GenerateActivationCodeDocument,
    input,
    // A terminal not yet provisioned has no credentials: it is limited per IP and per serial instead.
    { status: 201, anonymous: true },
  ),
  route(
    "POST",
    "/api/v1/device/provision/issueActivationCode",
    "issueActivationCode",
    IssueActivationCodeDocument,
    input,
    { status: 201 },
  ),
  route("POST", "/api/v1/device/provision/register", "registerDevice", RegisterDeviceDocument, registration, {
    status: 201,
    anonymous: true,
  }),
  route("POST", "/api/v1/device/provision/activate", "activateDevice", ActivateDeviceDocument, input),
  route(
    "GET",
    "/api/v1/device/provision/activationStatus",
    "activationStatus",
    ActivationStatusDocument,
    ({ query }) => ({ activation_code: query.get("activation_code") ?? "" }),
    { anonymous: true },
  ),
];
