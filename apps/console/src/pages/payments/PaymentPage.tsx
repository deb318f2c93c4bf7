import { useMutation, useQuery } from "@apollo/client/react";
import {
  Button,
  Code,
  Group,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { type FormEvent, type ReactNode, useState } from "react";
import { useParams } from "react-router";
import { DataTable } from "../../components/DataTable";
import { DateTime } from "../../components/DateTime";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { Money } from "../../components/Money";
import { methodLabel } from "../../components/payment-method";
import { StatusBadge } from "../../components/StatusBadge";
import {
  IntentTimelineDocument,
  PaymentDetailDocument,
  type PaymentDetailQuery,
  PaymentReceiptDocument,
  type ReceiptType,
  RefundPaymentDocument,
} from "../../graphql/graphql";

type Payment = PaymentDetailQuery["posPayment"];

/** One payment: what was paid, its refunds and a refund with approval, its receipt, and its gateway intent's timeline. */
export function PaymentPage() {
  const { id = "" } = useParams();
  const { data, error, refetch } = useQuery(PaymentDetailDocument, { variables: { id } });
  if (error) return <ErrorAlert error={error} />;
  if (!data) return <Loading />;
  const payment = data.posPayment;
  const refunds = data.posRefundStatus;
  return (
    <Stack>
      <Title order={2}>Payment {payment.id.slice(0, 8)}</Title>
      <SimpleGrid cols={{ base: 2, md: 4 }}>
        <Fact label="Status">
          <StatusBadge status={payment.status} />
        </Fact>
        <Fact label="Method">{methodLabel(payment.payment_method)}</Fact>
        <Fact label="Total">
          <Money amount={payment.total_amount} />
        </Fact>
        <Fact label="Refunded">
          <span data-testid="refunded-amount">
            <Money amount={refunds.refund_amount} />
          </span>
        </Fact>
        <Fact label="Refundable">
          <Money amount={refunds.refundable_amount} />
        </Fact>
        <Fact label="Taken">
          <DateTime value={payment.created_at} />
        </Fact>
        {payment.card_last_4 && (
          <Fact label="Card">
            {[payment.card_brand, `•••• ${payment.card_last_4}`, payment.approval_code && `(${payment.approval_code})`]
              .filter(Boolean)
              .join(" ")}
          </Fact>
        )}
        {payment.cash_received !== null && (
          <Fact label="Cash received">
            <Money amount={payment.cash_received} />
          </Fact>
        )}
      </SimpleGrid>
      <Title order={3}>Refunds</Title>
      <DataTable
        label="Refunds"
        empty="No refunds."
        rows={refunds.refunds}
        rowKey={(refund) => `refund-${refund.id}`}
        columns={[
          { header: "When", cell: (refund) => <DateTime value={refund.created_at} /> },
          { header: "Amount", cell: (refund) => <Money amount={refund.amount} /> },
          { header: "Status", field: "status", cell: (refund) => <StatusBadge status={refund.status} /> },
          { header: "Reason", cell: (refund) => refund.reason },
          { header: "Approved by", cell: (refund) => refund.staff_code },
        ]}
      />
      {refunds.refundable_amount > 0 && (
        <RefundForm payment={payment} refundable={refunds.refundable_amount} onDone={() => refetch()} />
      )}
      {payment.status !== "pending" && payment.status !== "failed" && <Receipt paymentId={payment.id} />}
      {payment.payment_intent_id && <IntentTimeline storeId={payment.store_id} intentId={payment.payment_intent_id} />}
    </Stack>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text component="div">{children}</Text>
    </div>
  );
}

/**
 * A partial or full refund. The approver's login id always; their PIN (a manager's password) when the person is
 * below L5 or names someone else, which the server decides and names in its refusal.
 */
function RefundForm({ payment, refundable, onDone }: { payment: Payment; refundable: number; onDone: () => void }) {
  const [amount, setAmount] = useState<number | string>(refundable);
  const [reason, setReason] = useState("");
  const [staffCode, setStaffCode] = useState("");
  const [pin, setPin] = useState("");
  const [refund, { loading, error, data, reset }] = useMutation(RefundPaymentDocument);

  async function submit(event: FormEvent) {
    event.preventDefault();
    reset();
    const done = await refund({
      variables: {
        payment_id: payment.id,
        input: {
          refund_amount: Number(amount),
          reason,
          staff_code: staffCode,
          ...(pin ? { staff_pin: pin } : {}),
        },
      },
    }).catch(() => null);
    if (done?.data) onDone();
  }

  return (
    <form onSubmit={submit} aria-label="Refund">
      <Stack maw={480}>
        <Title order={3}>Refund</Title>
        <NumberInput label="Amount" min={1} max={refundable} value={amount} onChange={setAmount} required />
        <TextInput label="Reason" value={reason} onChange={(e) => setReason(e.currentTarget.value)} required />
        <TextInput
          label="Approver's login id"
          description="A staff leader (L5) or above of the store"
          value={staffCode}
          onChange={(e) => setStaffCode(e.currentTarget.value)}
          required
        />
        <PasswordInput
          label="Approver's PIN"
          description="Needed when you are below L5 (a manager gives their password)"
          value={pin}
          onChange={(e) => setPin(e.currentTarget.value)}
        />
        {error && <ErrorAlert error={error} />}
        {data && (
          <Text role="status">
            Refund of <Money amount={data.refundPosPayment.refund.amount} />: {data.refundPosPayment.refund.status}
          </Text>
        )}
        <Group>
          <Button type="submit" loading={loading}>
            Refund
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** The platform's own receipt text, or its tax invoice, printable as it is. */
function Receipt({ paymentId }: { paymentId: string }) {
  const [type, setType] = useState<ReceiptType>("receipt");
  const { data, error } = useQuery(PaymentReceiptDocument, { variables: { payment_id: paymentId, type } });
  return (
    <Stack>
      <Group>
        <Title order={3}>Receipt</Title>
        <SegmentedControl
          aria-label="Receipt type"
          value={type}
          onChange={(value) => setType(value as ReceiptType)}
          data={[
            { value: "receipt", label: "Receipt" },
            { value: "tax_invoice", label: "Tax invoice" },
          ]}
        />
        <Button variant="default" onClick={() => window.print()} disabled={!data}>
          Print
        </Button>
      </Group>
      {error && <ErrorAlert error={error} />}
      {data && (
        <Code block aria-label={`${data.posReceipt.type} ${data.posReceipt.receipt_number}`} w="fit-content">
          {data.posReceipt.text}
        </Code>
      )}
    </Stack>
  );
}

/** The gateway's record of the payment: the intent's events and its ledger rows. */
function IntentTimeline({ storeId, intentId }: { storeId: number; intentId: string }) {
  const { data, error } = useQuery(IntentTimelineDocument, { variables: { store_id: storeId, id: intentId } });
  if (error) return <ErrorAlert error={error} />;
  const intent = data?.store.payment_intent;
  if (!intent) return null;
  return (
    <Stack>
      <Title order={3}>
        Intent {intent.id} <StatusBadge status={intent.status} />
      </Title>
      <DataTable
        label="Intent events"
        empty="No events kept (published events are kept 7 days)."
        rows={intent.events}
        rowKey={(event) => `event-${event.id}`}
        columns={[
          { header: "When", cell: (event) => <DateTime value={event.created_at} /> },
          { header: "Event", cell: (event) => event.event_type },
          { header: "Intent status", cell: (event) => event.intent_status },
          { header: "Published", cell: (event) => event.status },
        ]}
      />
      <DataTable
        label="Ledger"
        empty="No ledger rows."
        rows={intent.transactions}
        rowKey={(row) => `ledger-${row.id}`}
        columns={[
          { header: "When", cell: (row) => <DateTime value={row.created_at} /> },
          { header: "Type", cell: (row) => row.type },
          { header: "Status", cell: (row) => <StatusBadge status={row.status} /> },
          { header: "Amount", cell: (row) => <Money amount={row.amount} /> },
        ]}
      />
    </Stack>
  );
}
