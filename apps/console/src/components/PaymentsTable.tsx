import { Link } from "react-router";
import type { PaymentRowFragment } from "../graphql/graphql";
import { DataTable } from "./DataTable";
import { DateTime } from "./DateTime";
import { Money } from "./Money";
import { StatusBadge } from "./StatusBadge";

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
            <Link to={`/payments/${payment.id}`}>
              <DateTime value={payment.created_at} />
            </Link>
          ),
        },
        ...(props.withStore ? [{ header: "Store", cell: (payment: PaymentRowFragment) => payment.store_id }] : []),
        { header: "Method", cell: (payment) => payment.payment_method.type },
        { header: "Status", field: "status", cell: (payment) => <StatusBadge status={payment.status} /> },
        { header: "Amount", field: "total_amount", cell: (payment) => <Money amount={payment.total_amount} /> },
        { header: "Refunded", cell: (payment) => <Money amount={payment.refund_amount} /> },
      ]}
    />
  );
}
