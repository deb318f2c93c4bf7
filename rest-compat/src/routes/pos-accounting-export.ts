import { operationRoute as route } from "../operation-route";
import {
  AccountingExportDeliveriesDocument,
  AccountingExportDocument,
  ConfigureAccountingExportDocument,
  ResendAccountingExportDocument,
} from "../operations/gateway.generated";
import { integerParam } from "../params";
import type { RestRoute } from "../router";

const merchantId = (params: Record<string, string>) => integerParam(params.id, "id") ?? Number.NaN;

/** A merchant's accounting export (docs/decisions/pos.md, "The accounting export"). */
export const posAccountingExportRoutes: RestRoute[] = [
  route(
    "GET",
    "/api/v1/merchants/:id/accounting-export",
    "accountingExport",
    AccountingExportDocument,
    ({ params }) => ({ merchant_id: merchantId(params) }),
  ),
  route(
    "PUT",
    "/api/v1/merchants/:id/accounting-export",
    "configureAccountingExport",
    ConfigureAccountingExportDocument,
    ({ params, body }) => ({ input: { ...(body.fields as object), merchant_id: merchantId(params) } }),
  ),
  route(
    "GET",
    "/api/v1/merchants/:id/accounting-export/deliveries",
    "accountingExportDeliveries",
    AccountingExportDeliveriesDocument,
    ({ params, query }) => ({
      merchant_id: merchantId(params),
      store_id: integerParam(query.get("store_id"), "store_id"),
      date: query.get("date") ?? undefined,
    }),
  ),
  route(
    "POST",
    "/api/v1/accounting-export/resend",
    "resendAccountingExport",
    ResendAccountingExportDocument,
    ({ body }) => ({ input: body.fields }),
  ),
];
