import { operationRoute as route } from "../operation-route";
import { integerParam, pageParams } from "../params";
import type { RestRoute } from "../router";

const versionFields = `id app_name version_code version_name apk_url apk_size apk_checksum release_notes min_os_version
  is_mandatory rollout_percentage release_status enrolled_device_ids created_at published_at`;

export const appUpdateRoutes: RestRoute[] = [
  route(
    "POST",
    "/api/v1/app-updates",
    "registerAppVersion",
    `mutation RegisterAppVersion($input: RegisterAppVersionInput!) { registerAppVersion(input: $input) { ${versionFields} } }`,
    ({ body }) => ({ input: body.fields }),
    { status: 201 },
  ),
  route(
    "GET",
    "/api/v1/app-updates",
    "appVersions",
    `query AppVersions($app_name: String, $limit: Int, $offset: Int) {
      appVersions(app_name: $app_name, limit: $limit, offset: $offset) { nodes { ${versionFields} } } }`,
    ({ query }) => ({ app_name: query.get("app_name"), ...pageParams(query) }),
    { page: true },
  ),
  route(
    "GET",
    "/api/v1/app-updates/check",
    "checkAppUpdate",
    `query CheckAppUpdate($app_name: String!, $current_version_code: Int!, $device_id: ID!) {
      checkAppUpdate(app_name: $app_name, current_version_code: $current_version_code, device_id: $device_id) {
        update_available version_name version_code apk_url apk_size apk_checksum is_mandatory release_notes } }`,
    ({ query }) => ({
      app_name: query.get("app_name"),
      current_version_code: integerParam(query.get("current_version_code"), "current_version_code"),
      device_id: query.get("device_id"),
    }),
  ),
  route(
    "POST",
    "/api/v1/app-updates/install-confirm",
    "confirmAppInstall",
    `mutation ConfirmAppInstall($input: ConfirmAppInstallInput!) {
      confirmAppInstall(input: $input) { id device_id app_name version_code install_status reported_at } }`,
    ({ body }) => ({ input: body.fields }),
  ),
  route(
    "PATCH",
    "/api/v1/app-updates/:id",
    "updateAppVersion",
    `mutation UpdateAppVersion($id: Int!, $input: UpdateAppVersionInput!) { updateAppVersion(id: $id, input: $input) { ${versionFields} } }`,
    ({ params, body }) => ({ id: integerParam(params.id, "id"), input: body.fields }),
  ),
  route(
    "POST",
    "/api/v1/app-updates/:id/publish",
    "publishAppVersion",
    `mutation PublishAppVersion($id: Int!) { publishAppVersion(id: $id) { ${versionFields} } }`,
    ({ params }) => ({ id: integerParam(params.id, "id") }),
  ),
];
