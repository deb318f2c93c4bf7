import { Anchor, Stack, Text, Title } from "@mantine/core";
import { Link } from "react-router";
import type { SalesOverviewQuery } from "../../graphql/graphql";

type Alert = { kind: string; label: string; count: number | null | undefined; to?: string };

/**
 * What a person must look at, each count from the subgraph that holds its rows (read in the overview's one request),
 * linked to the page listing them where there is one. A kind the person's role may not see comes back null and is
 * left out, not shown as zero.
 */
export function OpenAlerts({
  alerts: { paymentsAlerts, posAlerts },
  storeId,
}: {
  alerts: Pick<SalesOverviewQuery, "paymentsAlerts" | "posAlerts">;
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
