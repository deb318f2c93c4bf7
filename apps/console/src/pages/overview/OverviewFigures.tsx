import { Anchor, Card, SimpleGrid, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { Money } from "../../components/Money";
import { type Overview, paymentsLink } from "./links";

type Day = Overview["today"];

/** A change against last week, in words: "+¥1,200 on last week" or "same as last week". */
function Change({ now, then, money }: { now: number; then: number; money: boolean }) {
  const change = now - then;
  if (change === 0) return <Text size="sm">same as last week ({money ? <Money amount={then} /> : then})</Text>;
  return (
    <Text size="sm">
      {change > 0 ? "+" : "−"}
      {money ? <Money amount={Math.abs(change)} /> : Math.abs(change)} on last week (
      {money ? <Money amount={then} /> : then})
    </Text>
  );
}

function Figure(props: { name: string; field: keyof Day; overview: Overview; to: string; money?: boolean }) {
  const now = props.overview.today[props.field] as number;
  const then = props.overview.last_week[props.field] as number;
  const money = props.money ?? true;
  return (
    <Card withBorder data-testid={`figure-${props.field}`}>
      <Text size="sm">{props.name}</Text>
      <Anchor component={Link} to={props.to} size="xl" fw={700} data-field={props.field}>
        {money ? <Money amount={now} /> : <span data-value={now}>{now}</span>}
      </Anchor>
      <Change now={now} then={then} money={money} />
    </Card>
  );
}

/** The share of decided payments that succeeded, and what became of the others. */
function SuccessRate({ overview }: { overview: Overview }) {
  const { outcomes } = overview;
  const rate = outcomes.success_rate;
  const link = (status: string, text: ReactNode) => (
    <Anchor component={Link} to={paymentsLink(overview, { status })} size="sm">
      {text}
    </Anchor>
  );
  return (
    <Card withBorder data-testid="figure-success_rate">
      <Text size="sm">Payment success</Text>
      <Text size="xl" fw={700} data-value={rate ?? ""}>
        {rate === null ? "no payments yet" : `${(rate * 100).toFixed(1)} %`}
      </Text>
      <Text size="sm">
        {link("completed", <span data-field="succeeded">{outcomes.succeeded} succeeded</span>)},{" "}
        {link("failed", <span data-field="failed">{outcomes.failed} failed</span>)},{" "}
        <span data-field="declined">{outcomes.declined} declined</span>,{" "}
        <span data-field="expired">{outcomes.expired} expired</span>,{" "}
        {link("pending", <span data-field="in_flight">{outcomes.in_flight} in flight</span>)}
      </Text>
    </Card>
  );
}

/** Today's gross, net, refunds and sales against the same weekday last week, and the payments' success rate. */
export function OverviewFigures({ overview }: { overview: Overview }) {
  const day = overview.store_id === null ? paymentsLink(overview) : `/day?store=${overview.store_id}`;
  return (
    <SimpleGrid cols={{ base: 1, sm: 2, lg: 5 }} aria-label="Today against last week">
      <Figure name="Gross" field="gross_amount" overview={overview} to={day} />
      <Figure name="Net" field="net_amount" overview={overview} to={day} />
      <Figure
        name="Refunds"
        field="refund_amount"
        overview={overview}
        to={paymentsLink(overview, { status: "refunded" })}
      />
      <Figure
        name="Sales"
        field="payment_count"
        overview={overview}
        to={paymentsLink(overview, { status: "completed" })}
        money={false}
      />
      <SuccessRate overview={overview} />
    </SimpleGrid>
  );
}
