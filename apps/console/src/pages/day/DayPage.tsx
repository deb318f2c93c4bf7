import { useApolloClient, useMutation, useQuery, useSubscription } from "@apollo/client/react";
import { Button, Group, NumberInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { useSearchParams } from "react-router";
import { DataTable } from "../../components/DataTable";
import { DateTime } from "../../components/DateTime";
import { download } from "../../components/download";
import { ErrorAlert } from "../../components/ErrorAlert";
import { HourlySales } from "../../components/HourlySales";
import { LiveBadge } from "../../components/LiveBadge";
import { Loading } from "../../components/Loading";
import { Money } from "../../components/Money";
import { PaymentsTable } from "../../components/PaymentsTable";
import { StatusBadge } from "../../components/StatusBadge";
import {
  CloseDaySettlementDocument,
  ResolveDayCardDifferencesDocument,
  ResolveDayQrDifferenceDocument,
  SettleDayDocument,
  StoreDayActivityDocument,
  type StoreDayActivityQuery,
  StoreDayCsvDocument,
  StoreDayDocument,
  StoreDayEventsDocument,
  type StoreDayEventsSubscription,
  StoreDayHoursDocument,
  type StoreDayQuery,
} from "../../graphql/graphql";
import { useReadAgainOnReconnect } from "../../session/live";
import { may } from "../../session/permissions";
import { useSession } from "../../session/useSession";
import { AccountingExportResend } from "./AccountingExportResend";
import { DifferenceResolution } from "./DifferenceResolution";

type Day = StoreDayQuery["storeDay"];
type StoreEvent = StoreDayEventsSubscription["storeEvents"];

/** What an event of the store's feed says, in a line. */
function describeEvent(event: StoreEvent) {
  if (event.payment_intent) return `Payment intent ${event.payment_intent.id}: ${event.payment_intent.status}`;
  if (event.payment)
    return `${event.payment.payment_method.type} payment ${event.payment.id.slice(0, 8)}: ${event.payment.status}`;
  if (event.bill) return `Bill ${event.bill.id.slice(0, 8)}: ${event.bill.status}`;
  if (event.order) return `Order ${event.order.id.slice(0, 8)}: ${event.order.status}`;
  return event.type;
}

/** A store's business day, live: its sales as they come, its totals per method, closing it and its reconciliation. */
export function DayPage() {
  const { identity } = useSession();
  const [params, setParams] = useSearchParams();
  const storeId = Number(params.get("store") ?? identity?.store_id ?? 0) || undefined;
  const date = params.get("date") ?? undefined;
  const setParam = (name: string, value: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value) next.set(name, value);
      else next.delete(name);
      return next;
    });

  const day = useQuery(StoreDayDocument, { variables: { store_id: storeId, date }, skip: !storeId });
  const shown = day.data?.storeDay;
  const activity = useQuery(StoreDayActivityDocument, {
    variables: { store_id: storeId ?? 0, from: shown?.starts_at ?? "", to: shown?.ends_at ?? "" },
    skip: !shown,
  });
  const hours = useQuery(StoreDayHoursDocument, {
    variables: { store_id: storeId ?? 0, date: shown?.date },
    skip: !shown,
  });
  const [events, setEvents] = useState<StoreEvent[]>([]);
  const readAgain = () => {
    day.refetch();
    activity.refetch();
    hours.refetch();
  };
  useSubscription(StoreDayEventsDocument, {
    variables: { store_id: storeId ?? 0 },
    skip: !storeId,
    onData: ({ data }) => {
      const event = data.data?.storeEvents;
      if (!event) return;
      setEvents((seen) => [event, ...seen.filter((e) => e.id !== event.id)].slice(0, 20));
      readAgain();
    },
  });
  useReadAgainOnReconnect(readAgain);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Store's day</Title>
        <LiveBadge />
      </Group>
      <Group align="end">
        {identity?.store_id === null && (
          <NumberInput
            label="Store id"
            value={storeId ?? ""}
            min={1}
            onChange={(value) => setParam("store", String(value))}
            w={140}
          />
        )}
        <TextInput
          label="Business day"
          type="date"
          value={shown?.date ?? date ?? ""}
          onChange={(e) => setParam("date", e.currentTarget.value)}
          w={180}
        />
      </Group>
      {!storeId && <Text>Give the store to show its day.</Text>}
      {day.error && <ErrorAlert error={day.error} />}
      {shown ? <DaySummary day={shown} onChange={readAgain} /> : storeId && !day.error && <Loading />}
      {hours.data && <HourlySales hours={hours.data.salesOverview.by_hour} label="Sales by hour" />}
      <Title order={3}>As it happens</Title>
      {events.length === 0 ? (
        <Text c="dimmed">Nothing yet since this page opened.</Text>
      ) : (
        <ul aria-label="Store events">
          {events.map((event) => (
            <li key={event.id}>
              <Text size="sm">
                <DateTime value={event.occurred_at} /> {describeEvent(event)}
              </Text>
            </li>
          ))}
        </ul>
      )}
      {activity.error && <ErrorAlert error={activity.error} />}
      {activity.data && <DayActivity data={activity.data} />}
    </Stack>
  );
}

function DaySummary({ day, onChange }: { day: Day; onChange: () => void }) {
  const { identity } = useSession();
  const client = useApolloClient();
  const [settle, settling] = useMutation(SettleDayDocument);
  const [close, closing] = useMutation(CloseDaySettlementDocument);
  const [exportError, setExportError] = useState<unknown>(null);
  const settlement = day.settlement;
  const refusal = settling.error ?? closing.error ?? exportError;

  async function closeDay() {
    // A refusal shows from the mutation's state; the day is read again either way.
    await (settlement
      ? close({ variables: { id: settlement.id } })
      : settle({ variables: { input: { store_id: day.store_id, date: day.date, auto_close: true } } })
    ).catch(() => undefined);
    onChange();
  }
  async function exportCsv() {
    setExportError(null);
    try {
      const { data } = await client.query({
        query: StoreDayCsvDocument,
        variables: { store_id: day.store_id, date: day.date },
        fetchPolicy: "network-only",
      });
      if (data) download(`day_${data.storeDay.store_id}_${data.storeDay.date}.csv`, data.storeDay.csv, "text/csv");
    } catch (error) {
      setExportError(error);
    }
  }

  return (
    <Stack>
      <Text>
        {day.store.name} ({day.store.code}), {day.date} ({day.timezone})
      </Text>
      <DataTable
        label="Totals per method"
        rows={[...day.totals, { ...day, payment_method: "All" }]}
        rowKey={(total) => `total-${total.payment_method}`}
        columns={[
          { header: "Method", cell: (total) => total.payment_method },
          { header: "Payments", field: "payment_count", cell: (total) => total.payment_count },
          { header: "Gross", field: "gross_amount", cell: (total) => <Money amount={total.gross_amount} /> },
          { header: "Of it tips", field: "tip_amount", cell: (total) => <Money amount={total.tip_amount} /> },
          { header: "Refunds", field: "refund_count", cell: (total) => total.refund_count },
          { header: "Refunded", field: "refund_amount", cell: (total) => <Money amount={total.refund_amount} /> },
          { header: "Net", field: "net_amount", cell: (total) => <Money amount={total.net_amount} /> },
        ]}
      />
      {day.carried_over_count > 0 && (
        <Text size="sm">
          {day.carried_over_count} late payments or refunds of closed earlier days are counted here.
        </Text>
      )}
      <Group>
        <Text data-testid="settlement-status">
          Settlement: {settlement ? <StatusBadge status={settlement.status} /> : "none yet"}
        </Text>
        {settlement?.status !== "closed" && (
          <Button onClick={closeDay} loading={settling.loading || closing.loading}>
            Close the day
          </Button>
        )}
        <Button variant="default" onClick={exportCsv}>
          Export CSV
        </Button>
      </Group>
      {refusal !== undefined && refusal !== null && <ErrorAlert error={refusal} />}
      {settlement?.closed_at && (
        <Text size="sm">
          Closed <DateTime value={settlement.closed_at} /> by {settlement.closed_by}
        </Text>
      )}
      {settlement && (
        <CardExchange settlementId={settlement.id} exchange={settlement.card_exchange} onChange={onChange} />
      )}
      <QrDifferences differences={day.store.qr_differences} onChange={onChange} />
      {identity && may.resendAccountingExport(identity) && (
        <AccountingExportResend merchantId={day.store.merchant_id} storeId={day.store_id} date={day.date} />
      )}
    </Stack>
  );
}

function CardExchange({
  settlementId,
  exchange,
  onChange,
}: {
  settlementId: string;
  exchange: NonNullable<Day["settlement"]>["card_exchange"];
  onChange: () => void;
}) {
  const { identity } = useSession();
  const [resolve] = useMutation(ResolveDayCardDifferencesDocument, { onCompleted: onChange });
  if (!exchange) return <Text size="sm">The card settlement exchange has not run for this day yet.</Text>;
  return (
    <Stack gap="xs">
      <Title order={3}>Card settlement exchange</Title>
      <Group>
        <StatusBadge status={exchange.status} />
        <Text size="sm">
          Uploaded {exchange.upload_count ?? 0} transactions, <Money amount={exchange.upload_amount ?? 0} />
          {exchange.report && (
            <>
              ; the acquirer settled {exchange.report.transaction_count},{" "}
              <Money amount={exchange.report.gross_amount} /> gross, <Money amount={exchange.report.fees} /> fees,{" "}
              <Money amount={exchange.report.net_amount} /> net
            </>
          )}
        </Text>
      </Group>
      {exchange.last_error && <Text c="red">{exchange.last_error}</Text>}
      <DataTable
        label="Differences"
        empty="No differences: the acquirer's file matches the day."
        rows={exchange.differences}
        rowKey={(difference) => `difference-${difference.field}`}
        columns={[
          { header: "Field", cell: (difference) => difference.field },
          { header: "Ours", field: "expected", cell: (difference) => difference.expected },
          { header: "Acquirer's", field: "actual", cell: (difference) => difference.actual },
        ]}
      />
      {exchange.status === "mismatch" && (
        <DifferenceResolution
          what="card differences"
          resolution={exchange}
          allowed={identity !== null && may.resolveCardDifferences(identity)}
          resolve={(note) => resolve({ variables: { input: { settlement_id: settlementId, note } } })}
        />
      )}
    </Stack>
  );
}

/**
 * Where a QR provider's view of the day differs from the ledger: recorded by the daily reconciliation, not repaired;
 * a person who dealt with one resolves it.
 */
function QrDifferences({
  differences,
  onChange,
}: {
  differences: Day["store"]["qr_differences"];
  onChange: () => void;
}) {
  const { identity } = useSession();
  const [resolve] = useMutation(ResolveDayQrDifferenceDocument, { onCompleted: onChange });
  const allowed = identity !== null && may.resolveQrDifference(identity);
  return (
    <Stack gap="xs">
      <Title order={3}>QR provider reconciliation</Title>
      <DataTable
        label="QR differences"
        empty="No differences: the QR providers' view matches the day, or the reconciliation has not run for it yet."
        rows={differences}
        rowKey={(difference) => `qr-difference-${difference.id}`}
        columns={[
          { header: "Provider", cell: (difference) => difference.provider },
          {
            header: "Payment",
            cell: (difference) => difference.payment_intent_id ?? difference.provider_transaction_id,
          },
          { header: "Field", cell: (difference) => difference.field },
          { header: "Ours", field: "expected", cell: (difference) => difference.expected },
          { header: "Provider's", field: "actual", cell: (difference) => difference.actual },
          { header: "Found", cell: (difference) => <DateTime value={difference.detected_at} /> },
          {
            header: "Resolution",
            cell: (difference) => (
              <DifferenceResolution
                what={`QR difference ${difference.id}`}
                resolution={difference}
                allowed={allowed}
                resolve={(note) => resolve({ variables: { input: { id: difference.id, note } } })}
              />
            ),
          },
        ]}
      />
    </Stack>
  );
}

type Activity = StoreDayActivityQuery;

function DayActivity({ data }: { data: Activity }) {
  return (
    <Stack>
      <Title order={3}>Payments ({data.posPayments.total_count})</Title>
      <PaymentsTable label="Payments of the day" payments={data.posPayments.nodes} />
      <Title order={3}>Orders ({data.orders.total_count})</Title>
      <DataTable
        label="Orders of the day"
        rows={data.orders.nodes}
        rowKey={(order) => `order-${order.id}`}
        columns={[
          { header: "Order", cell: (order) => order.order_number },
          { header: "Table", cell: (order) => order.table_number },
          { header: "Status", cell: (order) => <StatusBadge status={order.status} /> },
          { header: "Total", cell: (order) => <Money amount={order.total_amount} /> },
        ]}
      />
      <Title order={3}>Bills ({data.bills.total_count})</Title>
      <DataTable
        label="Bills of the day"
        rows={data.bills.nodes}
        rowKey={(bill) => `bill-${bill.id}`}
        columns={[
          { header: "Bill", cell: (bill) => bill.bill_number },
          { header: "Status", cell: (bill) => <StatusBadge status={bill.status} /> },
          { header: "Total", cell: (bill) => <Money amount={bill.total_amount} /> },
          { header: "Paid", cell: (bill) => <Money amount={bill.paid_amount} /> },
        ]}
      />
    </Stack>
  );
}
