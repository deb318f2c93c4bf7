import "@mantine/charts/styles.css";
import { BarChart } from "@mantine/charts";
import { formatYen } from "./Money";

/**
 * The bars of `HourlySales`; its figures are described by the table beside it, so the drawing is hidden from readers
 * and takes no keyboard focus (recharts' own keyboard layer is off).
 */
export default function SalesByHourChart({ data }: { data: { hour: string; amount: number }[] }) {
  return (
    <div aria-hidden="true" data-testid="sales-by-hour-chart">
      <BarChart
        h={220}
        data={data}
        dataKey="hour"
        series={[{ name: "amount", label: "Sales", color: "blue.8" }]}
        valueFormatter={formatYen}
        tickLine="y"
        withTooltip
        barChartProps={{ accessibilityLayer: false }}
      />
    </div>
  );
}
