import { operationRoute as route } from "../operation-route";
import {
  AppVersionsDocument,
  CheckAppUpdateDocument,
  ConfirmAppInstallDocument,
  PublishAppVersionDocument,
  RegisterAppVersionDocument,
  UpdateAppVersionDocument,
} from "../operations/gateway.generated";
import { integerParam, pageParams } from "../params";
import type { RestRoute } from "../router";

export const appUpdateRoutes: RestRoute[] = [
  route(
    "POST",
    "/api/v1/app-updates",
    "registerAppVersion",
    RegisterAppVersionDocument,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/app-updates",
    "appVersions",
    AppVersionsDocument,
    ({ query }) => ({ app_name: query.get("app_name"), ...pageParams(query) }),
    { page: true },
  ),
  route("GET", "/api/v1/app-updates/check", "checkAppUpdate", CheckAppUpdateDocument, ({ query }) => ({
    app_name: query.get("app_name"),
    current_version_code: integerParam(query.get("current_version_code"), "current_version_code"),
    device_id: query.get("device_id"),
  })),
  route("POST", "/api/v1/app-updates/install-confirm", "confirmAppInstall", ConfirmAppInstallDocument, ({ body }) => ({
    input: body.fields,
  })),
  route("PATCH", "/api/v1/app-updates/:id", "updateAppVersion", UpdateAppVersionDocument, ({ params, body }) => ({
    id: integerParam(params.id, "id"),
    input: body.fields,
  })),
  route("POST", "/api/v1/app-updates/:id/publish", "publishAppVersion", PublishAppVersionDocument, ({ params }) => ({
    id: integerParam(params.id, "id"),
  })),
];
