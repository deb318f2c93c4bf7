import { useQuery } from "@apollo/client/react";
import { Button, Group, Select, Stack, Text, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { DataTable } from "../../components/DataTable";
import { DateTime } from "../../components/DateTime";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Money } from "../../components/Money";
import { StatusBadge } from "../../components/StatusBadge";
import {
  CustomerHistoryDocument,
  type CustomerSortField,
  CustomerSpendDocument,
  SearchCustomersDocument,
  type SearchCustomersQueryVariables,
} from "../../graphql/graphql";

type Search = Pick<SearchCustomersQueryVariables, "name" | "phone" | "email" | "customer_number">;
const fields: { name: keyof Search; label: string }[] = [
  { name: "name", label: "Name or kana" },
  { name: "phone", label: "Phone" },
  { name: "email", label: "E-mail" },
  { name: "customer_number", label: "Customer number" },
];
const sorts: { value: CustomerSortField; label: string }[] = [
  { value: "name", label: "Name" },
  { value: "last_visit", label: "Last visit" },
  { value: "total_spent", label: "Total spent" },
];

/** A merchant's customers (Store Managers and above): search, then one customer's purchases over a date range. */
export function CustomersPage() {
  const [form, setForm] = useState<Search>({});
  const [search, setSearch] = useState<Search | null>(null);
  const [sort, setSort] = useState<CustomerSortField>("name");
  const [chosen, setChosen] = useState<string | null>(null);
  const found = useQuery(SearchCustomersDocument, { variables: { ...search, sort }, skip: !search });

  function submit(event: FormEvent) {
    event.preventDefault();
    setChosen(null);
    setSearch(Object.fromEntries(Object.entries(form).filter(([, value]) => value)));
  }

  return (
    <Stack>
      <Title order={2}>Customers</Title>
      <form onSubmit={submit} aria-label="Customer search">
        <Group align="end">
          {fields.map((field) => (
            <TextInput
              key={field.name}
              label={field.label}
              value={form[field.name] ?? ""}
              onChange={(e) => setForm({ ...form, [field.name]: e.currentTarget.value })}
            />
          ))}
          <Select
            label="Sort by"
            data={sorts}
            value={sort}
            onChange={(value) => setSort((value as CustomerSortField | null) ?? "name")}
            w={150}
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      {found.error && <ErrorAlert error={found.error} />}
      {found.data && (
        <>
          <Text size="sm" role="status">
            {found.data.customers.total_count} customers
          </Text>
          <DataTable
            label="Customers found"
            rows={found.data.customers.nodes}
            rowKey={(customer) => `customer-${customer.id}`}
            columns={[
              {
                header: "Number",
                cell: (customer) => (
                  <Button variant="subtle" size="compact-sm" onClick={() => setChosen(customer.id)}>
                    {customer.customer_number}
                  </Button>
                ),
              },
              { header: "Name", cell: (customer) => customer.name },
              { header: "Phone", cell: (customer) => customer.phone },
              { header: "E-mail", cell: (customer) => customer.email },
              { header: "Spent", cell: (customer) => <Money amount={customer.total_spent} /> },
              { header: "Visits", cell: (customer) => customer.total_visits },
              { header: "Last visit", cell: (customer) => <DateTime value={customer.last_visit} /> },
            ]}
          />
        </>
      )}
      {chosen && <CustomerHistory id={chosen} />}
    </Stack>
  );
}

function CustomerHistory({ id }: { id: string }) {
  const [range, setRange] = useState({ start_date: "", end_date: "" });
  const { data, error } = useQuery(CustomerHistoryDocument, {
    variables: { id, start_date: range.start_date || undefined, end_date: range.end_date || undefined },
  });
  if (error) return <ErrorAlert error={error} />;
  if (!data) return null;
  const { customer, customerOrders } = data;
  return (
    <Stack>
      <Title order={3}>{customer.name ?? customer.customer_number}: purchase history</Title>
      <Text>
        Lifetime: <Money amount={customer.total_spent} /> over {customer.total_visits} visits; last visit{" "}
        <DateTime value={customer.last_visit} />
      </Text>
      <Group>
        <TextInput
          label="From"
          type="date"
          value={range.start_date}
          onChange={(e) => setRange({ ...range, start_date: e.currentTarget.value })}
        />
        <TextInput
          label="To"
          type="date"
          value={range.end_date}
          onChange={(e) => setRange({ ...range, end_date: e.currentTarget.value })}
        />
      </Group>
      <Text size="sm" role="status">
        {customerOrders.total_count} orders in this range
      </Text>
      {range.start_date && range.end_date && <SpendInRange id={id} from={range.start_date} to={range.end_date} />}
      <DataTable
        label="Orders of the customer"
        rows={customerOrders.nodes}
        rowKey={(order) => `order-${order.id}`}
        columns={[
          { header: "When", cell: (order) => <DateTime value={order.created_at} /> },
          { header: "Order", cell: (order) => order.order_number },
          { header: "Store", cell: (order) => order.store_id },
          { header: "Status", cell: (order) => <StatusBadge status={order.status} /> },
          { header: "Total", cell: (order) => <Money amount={order.total_amount} /> },
        ]}
      />
    </Stack>
  );
}

/** What the customer spent from one business day to another, both included (the API refuses a range backwards). */
function SpendInRange({ id, from, to }: { id: string; from: string; to: string }) {
  const { data, error } = useQuery(CustomerSpendDocument, { variables: { id, from, to } });
  if (error) return <ErrorAlert error={error} />;
  const spend = data?.customer.spend;
  if (!spend) return null;
  return (
    <Text data-testid="customer-spend">
      Spent from {spend.from} to {spend.to}: <Money amount={spend.spent_amount} /> (paid{" "}
      <Money amount={spend.paid_amount} /> in {spend.payment_count} payments, refunded{" "}
      <Money amount={spend.refunded_amount} /> in {spend.refund_count} refunds)
    </Text>
  );
}
