import { Table, VisuallyHidden } from "@mantine/core";
import { lazy, Suspense, useId } from "react";
import { Loading } from "./Loading";
import { formatYen, Money } from "./Money";

/** Loaded on first use: recharts is most of the chart's weight, and stays out of the first load. */
const SalesByHourChart = lazy(() => import("./SalesByHourChart"));

export interface HourSales {
  hour: number;
  amount: number;
  count: number;
}

const hourLabel = (hour: number) => `${String(hour).padStart(2, "0")}:00`;

/**
 * Sales by hour of a business day: a bar chart, and the same figures as a table for screen readers (the chart's
 * description), each amount with the API's integer in `data-value`.
 */
export function HourlySales({ hours, label }: { hours: readonly HourSales[]; label: string }) {
  const tableId = useId();
  const total = hours.reduce((sum, hour) => sum + hour.amount, 0);
  const busiest = hours.reduce((best, hour) => (hour.amount > best.amount ? hour : best), hours[0]!);
  const summary =
    total === 0
      ? `${label}: no sales yet.`
      : `${label}: ${formatYen(total)} in all, most at ${hourLabel(busiest.hour)} (${formatYen(busiest.amount)}).`;
  return (
    <figure aria-label={label} aria-describedby={tableId} style={{ margin: 0 }}>
      <figcaption>{summary}</figcaption>
      <Suspense fallback={<Loading />}>
        <SalesByHourChart data={hours.map((hour) => ({ hour: hourLabel(hour.hour), amount: hour.amount }))} />
      </Suspense>
      <VisuallyHidden id={tableId}>
        <Table aria-label={`${label}, per hour`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Hour</Table.Th>
              <Table.Th>Sales</Table.Th>
              <Table.Th>Payments</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {hours.map((hour) => (
              <Table.Tr key={hour.hour} data-testid={`hour-${hour.hour}`}>
                <Table.Td>{hourLabel(hour.hour)}</Table.Td>
                <Table.Td data-field="amount">
                  <Money amount={hour.amount} />
                </Table.Td>
                <Table.Td data-field="count">{hour.count}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </VisuallyHidden>
    </figure>
  );
}
