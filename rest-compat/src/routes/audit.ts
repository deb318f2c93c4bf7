import { invalidField, toCsv } from "@pos-cloud/common";
import { runOperation } from "../graphql";
import { operationRoute as route } from "../operation-route";
import {
  AuditLogDocument,
  AuditLogExportDocument,
  type AuditRecordFieldsFragment,
} from "../operations/gateway.generated";
import { pageParams } from "../params";
import type { RestRequest, RestRoute } from "../router";

/** The list's filters, the same query parameters for the list and the export. */
const filterOf = ({ query }: RestRequest) => ({
  filter: {
    event: query.get("event"),
    actor: query.get("actor"),
    target: query.get("target"),
    from: query.get("from"),
    to: query.get("to"),
  },
});

const formats = { csv: "text/csv; charset=utf-8", ndjson: "application/x-ndjson" } as const;
type Format = keyof typeof formats;

function formatOf({ query }: RestRequest): Format {
  const format = query.get("format") ?? "csv";
  if (!Object.hasOwn(formats, format)) throw invalidField("format", "enum", "format must be csv or ndjson");
  return format as Format;
}

/** The export's variables; `format` is read (and checked) here too, so the reference lists it with the filters. */
const exportVariables = (request: RestRequest) => {
  formatOf(request);
  return filterOf(request);
};

const columns = Object.keys({
  id: 0,
  seq: 0,
  event: 0,
  timestamp: 0,
  user_id: 0,
  actor_type: 0,
  actor_id: 0,
  ip_address: 0,
  user_agent: 0,
  success: 0,
  target_type: 0,
  target_id: 0,
  psp_id: 0,
  merchant_id: 0,
  store_id: 0,
  metadata: 0,
  prev_hash: 0,
  hash: 0,
} satisfies Record<keyof Omit<AuditRecordFieldsFragment, "__typename">, 0>);

/**
 * One page of records in the format asked: CSV rows (metadata as JSON text, text cells spreadsheet-safe: a user agent
 * is the caller's to choose) or one JSON object a line.
 */
function lines(records: AuditRecordFieldsFragment[], format: Format, header: boolean): string {
  if (format === "ndjson") return records.map((record) => `${JSON.stringify(record)}\n`).join("");
  const rows = records.map((record) => ({ ...record, metadata: JSON.stringify(record.metadata) }));
  return toCsv(rows, { header, columns, cast: { boolean: String } });
}

/** Audit trail routes: the list (paged like every list) and its export, streamed a page at a time. */
export const auditRoutes: RestRoute[] = [
  route(
    "GET",
    "/api/v1/audit-logs",
    "auditLog",
    AuditLogDocument,
    (request) => ({ ...filterOf(request), after: request.query.get("after"), ...pageParams(request.query) }),
    { page: true },
  ),
  {
    method: "GET",
    path: "/api/v1/audit-logs/export",
    alsoUnprefixed: true,
    doc: {
      operation: AuditLogExportDocument,
      field: "auditLogExport",
      status: 200,
      variables: exportVariables,
      page: true,
      formats: Object.values(formats).map((type) => type.split(";")[0]!),
    },
    /**
     * The first page is read before anything is sent, so a refusal (scope, range, a bad filter) is an error answer;
     * the rest follow as the client reads, the next page asked after its cursor.
     */
    async handle(request, execute) {
      const format = formatOf(request);
      const variables = exportVariables(request);
      const read = async (after: string | null) =>
        (await runOperation(execute, AuditLogExportDocument, { ...variables, after }, request.caller)).auditLogExport;
      const first = await read(null);
      async function* chunks() {
        let page = first;
        yield lines(page.nodes, format, true);
        while (page.page_info.has_next_page) {
          page = await read(page.page_info.end_cursor);
          yield lines(page.nodes, format, false);
        }
      }
      return {
        status: 200,
        body: null,
        headers: {
          "content-type": formats[format],
          "content-disposition": `attachment; filename="audit-log.${format}"`,
          "x-total-count": String(first.total_count),
        },
        stream: chunks(),
      };
    },
  },
];
