import { Anchor, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import type { SalesOverviewQuery } from "../../graphql/graphql";

type Count = number | null | undefined;
type Alert = { kind: string; label: string; count: Count; to?: string };

/** Counts of one kind from several subgraphs, as one: null when the person may see none of them. */
const sum = (...counts: Count[]) =>
  counts.every((count) => typeof count !== "number")
    ? null
    : counts.reduce<number>((all, count) => all + (count ?? 0), 0);

/**
 * What a person must look at, each count from the subgraph that holds its rows (read in the overview's one request),
 * linked to the page listing them where there is one. A kind the person's role may not see comes back null and is
 * left out, not shown as zero.
 */
export function OpenAlerts({
  alerts: { paymentsAlerts, posAlerts, portalAlerts },
  storeId,
}: {
  alerts: Pick<SalesOverviewQuery, "paymentsAlerts" | "posAlerts" | "portalAlerts">;
  storeId: number | null;
}) {
  const alerts: Alert[] = [
    {
      kind: "dead_letters",
      label: "Partner webhook dead letters",
      count: paymentsAlerts.dead_letters,
      to: "/webhooks",
    },
    {
      kind: "expiring_api_keys",
      label: "API keys expiring within 30 days",
      count: paymentsAlerts.expiring_api_keys,
      to: "/partners",
    },
    {
      kind: "card_settlement_differences",
      label: "Days whose card settlement file differed",
      count: posAlerts.card_settlement_differences,
      to: storeId === null ? undefined : `/day?store=${storeId}`,
    },
    {
      kind: "qr_differences",
      label: "QR payments a provider saw differently",
      count: paymentsAlerts.qr_differences,
      to: storeId === null ? undefined : `/day?store=${storeId}`,
    },
    {
      kind: "undeliverable_messages",
      label: "E-mails and SMS that could not be delivered",
      count: sum(posAlerts.undeliverable_messages, portalAlerts.undeliverable_messages),
      to: "/messages",
    },
  ];
  const shown = alerts.filter((alert): alert is Alert & { count: number } => typeof alert.count === "number");
  return (
    <Stack gap="xs">
      <Title order={3}>Open alerts</Title>
      {shown.length === 0 && <Text>No alerts for your role.</Text>}
      {shown.map((alert) => (
        <Text key={alert.kind} data-testid={`alert-${alert.kind}`}>
          {alert.label}:{" "}
          {alert.to ? (
            <Anchor component={Link} to={alert.to} data-value={alert.count}>
              {alert.count}
            </Anchor>
          ) : (
            <span data-value={alert.count}>{alert.count}</span>
          )}
        </Text>
      ))}
    </Stack>
  );
}
