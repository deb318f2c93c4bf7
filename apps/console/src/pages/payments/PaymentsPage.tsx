import { useQuery } from "@apollo/client/react";
import { Group, Select, Stack, Text, TextInput, Title } from "@mantine/core";
import { useSearchParams } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { PaymentsTable } from "../../components/PaymentsTable";
import {
  type PosPaymentMethodType,
  type PosPaymentStatus,
  SearchPaymentsDocument,
  type SearchPaymentsQueryVariables,
} from "../../graphql/graphql";
import { useSession } from "../../session/useSession";

/** A date input's day as the start of that local day, as the API's DateTime. */
const startOfDay = (day: string | null, plusDays = 0) => {
  if (!day) return undefined;
  const at = new Date(`${day}T00:00:00`);
  at.setDate(at.getDate() + plusDays);
  return at.toISOString();
};
const statuses: PosPaymentStatus[] = ["pending", "processing", "completed", "failed", "refunded"];
const methods: PosPaymentMethodType[] = ["CASH", "CREDIT_CARD", "EMONEY", "QR"];
const whole = (value: string | null) => (value ? Number(value) : undefined);

/** Payments found by store, days, status, method and amount; the filters live in the URL, so a search is a link. */
export function PaymentsPage() {
  const { identity } = useSession();
  const [params, setParams] = useSearchParams();
  const read = (name: string) => params.get(name);
  const set = (name: string, value: string | number | null) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value === null || value === "") next.delete(name);
      else next.set(name, String(value));
      return next;
    });
  const variables: SearchPaymentsQueryVariables = {
    store_id: whole(read("store")) ?? identity?.store_id ?? undefined,
    from: startOfDay(read("from")),
    to: startOfDay(read("to"), 1),
    status: (read("status") as PosPaymentStatus | null) ?? undefined,
    method: (read("method") as PosPaymentMethodType | null) ?? undefined,
    min_amount: whole(read("min")),
    max_amount: whole(read("max")),
  };
  const { data, error, loading } = useQuery(SearchPaymentsDocument, { variables });

  return (
    <Stack>
      <Title order={2}>Payments</Title>
      <Group align="end" role="search" aria-label="Payment search">
        {identity?.store_id === null && (
          <TextInput
            label="Store id"
            type="number"
            min={1}
            value={read("store") ?? ""}
            onChange={(e) => set("store", e.currentTarget.value)}
            w={120}
          />
        )}
        <TextInput
          label="From"
          type="date"
          value={read("from") ?? ""}
          onChange={(e) => set("from", e.currentTarget.value)}
        />
        <TextInput label="To" type="date" value={read("to") ?? ""} onChange={(e) => set("to", e.currentTarget.value)} />
        <Select
          label="Status"
          clearable
          data={statuses}
          value={read("status")}
          onChange={(v) => set("status", v)}
          w={150}
        />
        <Select
          label="Method"
          clearable
          data={methods}
          value={read("method")}
          onChange={(v) => set("method", v)}
          w={160}
        />
        <TextInput
          label="Amount from"
          type="number"
          min={0}
          value={read("min") ?? ""}
          onChange={(e) => set("min", e.currentTarget.value)}
          w={130}
        />
        <TextInput
          label="Amount to"
          type="number"
          min={0}
          value={read("max") ?? ""}
          onChange={(e) => set("max", e.currentTarget.value)}
          w={130}
        />
      </Group>
      {error && <ErrorAlert error={error} />}
      {loading && !data && <Loading />}
      {data && (
        <>
          <Text size="sm" role="status">
            {data.posPayments.total_count} payments
            {data.posPayments.total_count > data.posPayments.nodes.length &&
              `, the latest ${data.posPayments.nodes.length} shown`}
          </Text>
          <PaymentsTable label="Payments found" payments={data.posPayments.nodes} withStore />
        </>
      )}
    </Stack>
  );
}
