import { useApolloClient, useQuery } from "@apollo/client/react";
import { Anchor, Button, Code, Group, Stack, Text, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { Link } from "react-router";
import { DataTable } from "../../components/DataTable";
import { DateTime } from "../../components/DateTime";
import { download } from "../../components/download";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import {
  type AuditLogFilter,
  type AuditRowFragment,
  AuditTrailDocument,
  AuditTrailExportDocument,
} from "../../graphql/graphql";

type FilterForm = { event: string; actor: string; target: string; from: string; to: string };
const empty: FilterForm = { event: "", actor: "", target: "", from: "", to: "" };
const labels: Record<keyof FilterForm, string> = {
  event: "Event (user.login or user.*)",
  actor: "Actor id",
  target: "Target id",
  from: "From",
  to: "To",
};

function filterOf(form: FilterForm): AuditLogFilter {
  const moment = (value: string) => (value ? new Date(value).toISOString() : undefined);
  return {
    event: form.event || undefined,
    actor: form.actor || undefined,
    target: form.target || undefined,
    from: moment(form.from),
    to: moment(form.to),
  };
}

/** Where a record's subject is shown in the console: a payment (or a refund's payment); else its id. */
function Subject({ record }: { record: AuditRowFragment }) {
  const metadata = record.metadata as { payment_id?: string };
  const paymentId = record.target_type === "pos_payment" ? record.target_id : metadata.payment_id;
  if (paymentId)
    return (
      <Anchor component={Link} to={`/payments/${paymentId}`}>
        payment {paymentId.slice(0, 8)}
      </Anchor>
    );
  return (
    <Text size="sm">
      {record.target_type} {record.target_id}
    </Text>
  );
}

/** The audit trail of what the caller reaches: filter, read, export; each record links to its subject. */
export function AuditPage() {
  const client = useApolloClient();
  const [form, setForm] = useState<FilterForm>(empty);
  const [filter, setFilter] = useState<AuditLogFilter>({});
  const [exportError, setExportError] = useState<unknown>(null);
  const { data, error, loading, fetchMore } = useQuery(AuditTrailDocument, { variables: { filter } });

  function submit(event: FormEvent) {
    event.preventDefault();
    setFilter(filterOf(form));
  }
  /** Every page of the export range, as one JSON file. */
  async function exportRange() {
    setExportError(null);
    try {
      const records: AuditRowFragment[] = [];
      let after: string | null | undefined;
      do {
        const { data: page } = await client.query({
          query: AuditTrailExportDocument,
          variables: { filter, after },
          fetchPolicy: "network-only",
        });
        if (!page) break;
        records.push(...page.auditLogExport.nodes);
        after = page.auditLogExport.page_info.has_next_page ? page.auditLogExport.page_info.end_cursor : null;
      } while (after);
      download("audit-trail.json", JSON.stringify(records, null, 2), "application/json");
    } catch (failure) {
      setExportError(failure);
    }
  }

  return (
    <Stack>
      <Title order={2}>Audit trail</Title>
      <form onSubmit={submit} aria-label="Audit search">
        <Group align="end">
          {(Object.keys(labels) as (keyof FilterForm)[]).map((name) => (
            <TextInput
              key={name}
              label={labels[name]}
              type={name === "from" || name === "to" ? "datetime-local" : "text"}
              value={form[name]}
              onChange={(e) => setForm({ ...form, [name]: e.currentTarget.value })}
            />
          ))}
          <Button type="submit">Search</Button>
          <Button variant="default" onClick={exportRange}>
            Export
          </Button>
        </Group>
      </form>
      {error && <ErrorAlert error={error} />}
      {exportError !== null && <ErrorAlert error={exportError} />}
      {loading && !data && <Loading />}
      {data && (
        <>
          <Text size="sm" role="status">
            {data.auditLog.total_count} records
          </Text>
          <DataTable
            label="Audit records"
            rows={data.auditLog.nodes}
            rowKey={(record) => `audit-${record.id}`}
            columns={[
              { header: "When", cell: (record) => <DateTime value={record.timestamp} /> },
              { header: "Event", field: "event", cell: (record) => record.event },
              { header: "OK", cell: (record) => (record.success ? "yes" : "no") },
              {
                header: "Actor",
                cell: (record) => `${record.actor_type} ${record.actor_id ?? ""}`,
              },
              { header: "About", cell: (record) => <Subject record={record} /> },
              {
                header: "Details",
                field: "metadata",
                cell: (record) => <Code>{JSON.stringify(record.metadata)}</Code>,
              },
            ]}
          />
          {data.auditLog.page_info.has_next_page && (
            <Button
              variant="default"
              onClick={() =>
                fetchMore({
                  variables: { after: data.auditLog.page_info.end_cursor },
                  updateQuery: (shown, { fetchMoreResult }) => ({
                    auditLog: {
                      ...fetchMoreResult.auditLog,
                      nodes: [...(shown.auditLog?.nodes ?? []), ...fetchMoreResult.auditLog.nodes],
                    },
                  }),
                })
              }
            >
              More
            </Button>
          )}
        </>
      )}
    </Stack>
  );
}
