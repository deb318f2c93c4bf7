import { z } from "zod";
import { installInput, registerInput, updateInput } from "./modules/app-updates/app-update.inputs";
import { auditFilter } from "./modules/audit/audit.inputs";
import {
  deviceFilter,
  deviceRegister,
  deviceTelemetry,
  deviceTransfer,
  deviceUpdate,
} from "./modules/devices/device.inputs";
import { activateInput, generateInput, issueInput } from "./modules/provisioning/provisioning.inputs";
import { merchantCreate, merchantUpdate, pspInput, storeCreate, storeUpdate } from "./modules/tenants/tenant.inputs";

/**
 * The validator each GraphQL input type of the portal meets in its service, by the type's name: the API reference
 * (`rest-compat/src/openapi.ts`) describes a request body with it, so the reference says what the service checks.
 * Loaded by the edge, so this file and what it imports stay free of storage.
 */
export const requestSchemas: Record<string, z.ZodType> = {
  RegisterAppVersionInput: registerInput,
  UpdateAppVersionInput: updateInput,
  ConfirmAppInstallInput: installInput,
  CreatePspInput: pspInput,
  CreateMerchantInput: merchantCreate,
  UpdateMerchantInput: merchantUpdate,
  CreateStoreInput: storeCreate,
  UpdateStoreInput: storeUpdate,
  GenerateActivationCodeInput: generateInput,
  IssueActivationCodeInput: issueInput,
  ActivateDeviceInput: activateInput,
  RegisterTerminalInput: deviceRegister,
  // A person changes a terminal's settings; the terminal itself reports only its telemetry.
  UpdateTerminalInput: z.union([deviceUpdate, deviceTelemetry]),
  TransferTerminalInput: deviceTransfer,
};

/**
 * The validator of a list's filters, by the query field that lists: its fields are the REST route's query parameters.
 * A validator that says what GraphQL's type says (the terminals' status enum) leaves the type alone in the reference;
 * users are filtered by GraphQL's types alone (an id, a role enum), as the service checks nothing more.
 */
export const queryFilters: Record<string, z.ZodObject> = {
  auditLog: auditFilter,
  auditLogExport: auditFilter,
  terminals: deviceFilter,
};
