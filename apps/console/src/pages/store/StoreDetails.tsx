import { useMutation } from "@apollo/client/react";
import { Button, Group, Paper, SimpleGrid, Text, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { ErrorAlert } from "../../components/ErrorAlert";
import { notifyDone } from "../../components/notify";
import { type StorePageQuery, UpdateStoreDetailsDocument, UpdateTerminalLimitDocument } from "../../graphql/graphql";
import { may } from "../../session/permissions";
import { useSession } from "../../session/useSession";

type Store = NonNullable<StorePageQuery["store"]>;

const blankToNull = (text: string) => (text.trim() === "" ? null : text.trim());

/** The store's details, editable by L0–L4; the merchant's terminal limit per store, editable by L0–L2. */
export function StoreDetails({ store }: { store: Store }) {
  const { identity } = useSession();
  const editable = identity !== null && may.editStore(identity);
  const [name, setName] = useState(store.name);
  const [email, setEmail] = useState(store.contact_email ?? "");
  const [phone, setPhone] = useState(store.contact_phone ?? "");
  const [taxRate, setTaxRate] = useState(String(store.tax_rate ?? ""));
  const [update, updateState] = useMutation(UpdateStoreDetailsDocument);

  async function save(event: FormEvent) {
    event.preventDefault();
    const input = {
      name: name.trim(),
      contact_email: blankToNull(email),
      contact_phone: blankToNull(phone),
      tax_rate: taxRate.trim() === "" ? null : Number(taxRate),
    };
    const { data } = await update({ variables: { id: store.id, input } }).catch(() => ({ data: undefined }));
    if (data) notifyDone("Store details saved");
  }

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="details-title">
      <Title order={3} id="details-title" mb="sm">
        Details
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Code {store.code} · merchant {store.merchant.name}
      </Text>
      <form onSubmit={save}>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} readOnly={!editable} />
          <TextInput
            label="Tax rate (%)"
            type="number"
            step="0.01"
            value={taxRate}
            onChange={(e) => setTaxRate(e.currentTarget.value)}
            readOnly={!editable}
          />
          <TextInput
            label="Contact e-mail"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            readOnly={!editable}
          />
          <TextInput
            label="Contact phone"
            value={phone}
            onChange={(e) => setPhone(e.currentTarget.value)}
            readOnly={!editable}
          />
        </SimpleGrid>
        {updateState.error && <ErrorAlert error={updateState.error} />}
        {editable && (
          <Group mt="sm">
            <Button type="submit" loading={updateState.loading}>
              Save details
            </Button>
          </Group>
        )}
      </form>
      <TerminalLimit store={store} />
    </Paper>
  );
}

function TerminalLimit({ store }: { store: Store }) {
  const { identity } = useSession();
  const limit = store.merchant.terminal_limit_per_store;
  const [value, setValue] = useState(String(limit ?? ""));
  const [update, state] = useMutation(UpdateTerminalLimitDocument);
  const occupied = store.devices.filter((device) => device.status !== "decommissioned").length;
  const summary = `${occupied} of ${limit ?? "unlimited"} terminals in use`;
  if (!identity || !may.setTerminalLimit(identity))
    return (
      <Text mt="md" data-testid="terminal-limit">
        Terminal limit per store: {summary}
      </Text>
    );
  async function save(event: FormEvent) {
    event.preventDefault();
    const next = value.trim() === "" ? null : Number(value);
    const { data } = await update({ variables: { id: store.merchant.id, limit: next } }).catch(() => ({
      data: undefined,
    }));
    if (data) notifyDone("Terminal limit saved");
  }
  return (
    <form onSubmit={save}>
      <Group mt="md" align="end">
        <TextInput
          label="Terminal limit per store (all the merchant's stores; empty: none)"
          type="number"
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          w={360}
        />
        <Button type="submit" variant="default" loading={state.loading}>
          Save limit
        </Button>
        <Text size="sm" data-testid="terminal-limit">
          {summary}
        </Text>
      </Group>
      {state.error && <ErrorAlert error={state.error} />}
    </form>
  );
}
