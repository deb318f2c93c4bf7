import { useQuery, useSubscription } from "@apollo/client/react";
import { Anchor, Group, NumberInput, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useCallback, useRef } from "react";
import { Link, useSearchParams } from "react-router";
import { DataTable } from "../../components/DataTable";
import { ErrorAlert } from "../../components/ErrorAlert";
import { HourlySales } from "../../components/HourlySales";
import { LiveBadge } from "../../components/LiveBadge";
import { Loading } from "../../components/Loading";
import { Money } from "../../components/Money";
import { OverviewStoreEventsDocument, OverviewStoresDocument, SalesOverviewDocument } from "../../graphql/graphql";
import { useReadAgainOnReconnect } from "../../session/live";
import { useSession } from "../../session/useSession";
import { type Overview, paymentsLink } from "./links";
import { OpenAlerts } from "./OpenAlerts";
import { OverviewFigures } from "./OverviewFigures";

/**
 * Reads again one at a time: an event that comes while a read is under way asks for one more read after it, so a
 * burst of events (an order, its bill, its payment) costs two reads of the overview, not one per event.
 */
function useCoalescedReadAgain(read: () => Promise<unknown>) {
  const state = useRef({ running: false, again: false });
  const latest = useRef(read);
  latest.current = read;
  return useCallback(async () => {
    const current = state.current;
    if (current.running) {
      current.again = true;
      return;
    }
    current.running = true;
    do {
      current.again = false;
      await latest.current().catch(() => undefined);
    } while (current.again);
    current.running = false;
  }, []);
}

/** Reads the overview again at each event of one store's feed (rendered once per store followed). */
function StoreFeed({ storeId, onEvent }: { storeId: number; onEvent: () => unknown }) {
  useSubscription(OverviewStoreEventsDocument, { variables: { store_id: storeId }, onData: onEvent });
  return null;
}

/**
 * The business at a glance, the landing page of L1 to L4: the day's money against the same weekday last week,
 * sales by hour, the split by method, how payments ended and where they failed; live over the stores' feeds.
 */
export function OverviewPage() {
  const { identity } = useSession();
  const [params, setParams] = useSearchParams();
  const storeId = Number(params.get("store")) || undefined;
  const overview = useQuery(SalesOverviewDocument, { variables: { store_id: storeId } });
  const stores = useQuery(OverviewStoresDocument);
  const followed = storeId ? [storeId] : (stores.data?.stores.nodes.map((store) => store.id) ?? []);
  const readAgain = useCoalescedReadAgain(() => overview.refetch());
  useReadAgainOnReconnect(readAgain);
  const shown = overview.data?.salesOverview;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Overview</Title>
        <LiveBadge />
      </Group>
      {followed.map((id) => (
        <StoreFeed key={id} storeId={id} onEvent={readAgain} />
      ))}
      {identity?.store_id === null && (
        <NumberInput
          label="Store id (empty: every store you reach)"
          value={storeId ?? ""}
          min={1}
          onChange={(value) => setParams(value ? { store: String(value) } : {})}
          w={280}
        />
      )}
      {overview.error && <ErrorAlert error={overview.error} />}
      {shown ? <OverviewBody overview={shown} /> : !overview.error && <Loading />}
      {overview.data && <OpenAlerts alerts={overview.data} storeId={storeId ?? null} />}
    </Stack>
  );
}

function OverviewBody({ overview }: { overview: Overview }) {
  return (
    <Stack>
      <Text>
        Business day {overview.date} ({overview.timezone}),{" "}
        {overview.store_id === null ? "every store you reach" : `store ${overview.store_id}`}, against{" "}
        {overview.last_week.date}.
      </Text>
      <OverviewFigures overview={overview} />
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Stack>
          <Title order={3}>Sales by hour</Title>
          <HourlySales hours={overview.by_hour} label="Sales by hour" />
        </Stack>
        <Stack>
          <Title order={3}>By payment method</Title>
          <DataTable
            label="By payment method"
            rows={overview.today.totals}
            rowKey={(total) => `method-${total.payment_method}`}
            columns={[
              {
                header: "Method",
                cell: (total) => (
                  <Anchor component={Link} to={paymentsLink(overview, { method: total.payment_method })}>
                    {total.payment_method}
                  </Anchor>
                ),
              },
              { header: "Payments", field: "payment_count", cell: (total) => total.payment_count },
              { header: "Gross", field: "gross_amount", cell: (total) => <Money amount={total.gross_amount} /> },
              { header: "Net", field: "net_amount", cell: (total) => <Money amount={total.net_amount} /> },
            ]}
          />
        </Stack>
      </SimpleGrid>
      <FailingStores overview={overview} />
    </Stack>
  );
}

function FailingStores({ overview }: { overview: Overview }) {
  return (
    <Stack>
      <Title order={3}>Stores with the most failed payments</Title>
      <DataTable
        label="Stores with the most failed payments"
        empty="No failed payments today."
        rows={overview.failing_stores}
        rowKey={(failing) => `failing-${failing.store_id}`}
        columns={[
          {
            header: "Store",
            cell: (failing) => (
              <Anchor component={Link} to={`/day?store=${failing.store_id}`}>
                {failing.store.name} ({failing.store.code})
              </Anchor>
            ),
          },
          {
            header: "Failed",
            field: "failed_count",
            cell: (failing) => (
              <Anchor
                component={Link}
                to={paymentsLink(overview, { store: String(failing.store_id), status: "failed" })}
              >
                {failing.failed_count}
              </Anchor>
            ),
          },
          { header: "Attempted", field: "attempt_count", cell: (failing) => failing.attempt_count },
        ]}
      />
    </Stack>
  );
}
