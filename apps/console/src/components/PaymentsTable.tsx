import { Badge, Group } from "@mantine/core";
import { Link } from "react-router";
import type { PaymentRowFragment } from "../graphql/graphql";
import { DataTable } from "./DataTable";
import { DateTime } from "./DateTime";
import { Money } from "./Money";
import { methodLabel } from "./payment-method";
import { StatusBadge } from "./StatusBadge";

/** The mark of a sale the terminal recorded offline and sent later: when it happened, besides when it arrived. */
function RecordedOffline({ payment }: { payment: PaymentRowFragment }) {
  if (!payment.recorded_offline) return null;
  return (
    <Badge color="grape" variant="light" title={`Happened ${new Date(payment.occurred_at).toLocaleString()}`}>
      Recorded offline
    </Badge>
  );
}

/** Payments, each linked to its page; `withStore` adds the store where a list spans stores. */
export function PaymentsTable(props: { label: string; payments: PaymentRowFragment[]; withStore?: boolean }) {
  return (
    <DataTable
      label={props.label}
      rows={props.payments}
      rowKey={(payment) => `payment-${payment.id}`}
      columns={[
        {
          header: "Time",
          cell: (payment) => (
            <Group gap="xs">
              <Link to={`/payments/${payment.id}`}>
                <DateTime value={payment.created_at} />
              </Link>
              <RecordedOffline payment={payment} />
            </Group>
          ),
        },
        ...(props.withStore ? [{ header: "Store", cell: (payment: PaymentRowFragment) => payment.store_id }] : []),
        { header: "Method", cell: (payment) => methodLabel(payment.payment_method) },
        { header: "Status", field: "status", cell: (payment) => <StatusBadge status={payment.status} /> },
        { header: "Amount", field: "total_amount", cell: (payment) => <Money amount={payment.total_amount} /> },
        { header: "Refunded", cell: (payment) => <Money amount={payment.refund_amount} /> },
      ]}
    />
  );
}
