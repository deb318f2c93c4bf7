import { useMutation, useQuery } from "@apollo/client/react";
import { Alert, Button, Code, Group, Stack, Text, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { useSearchParams } from "react-router";
import { type Column, DataTable } from "../../components/DataTable";
import { DateTime } from "../../components/DateTime";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import {
  PartnerWebhookDocument,
  RedeliverWebhookDocument,
  RotatePartnerWebhookSecretDocument,
  SetPartnerWebhookDocument,
  type WebhookDeliveryRowFragment,
} from "../../graphql/graphql";
import { KeyRestriction } from "./KeyRestriction";

const deliveryColumns: Column<WebhookDeliveryRowFragment>[] = [
  { header: "Event", cell: (delivery) => <Code>{delivery.id}</Code> },
  { header: "Type", cell: (delivery) => delivery.event_type },
  { header: "Status", field: "status", cell: (delivery) => <StatusBadge status={delivery.status} /> },
  { header: "Attempts", field: "attempts", cell: (delivery) => delivery.attempts },
  {
    header: "Last answer",
    cell: (delivery) => delivery.last_error ?? delivery.last_status_code ?? "",
  },
  { header: "Changed", cell: (delivery) => <DateTime value={delivery.updated_at} /> },
];

/** A partner API key's webhook (its partner's admins and system operators): where it posts, its deliveries. */
export function WebhooksPage() {
  const [params, setParams] = useSearchParams();
  const clientId = params.get("client_id") ?? "";
  const [typed, setTyped] = useState(clientId);

  function choose(event: FormEvent) {
    event.preventDefault();
    setParams({ client_id: typed.trim() });
  }

  return (
    <Stack>
      <Title order={2}>Partner webhooks</Title>
      <form onSubmit={choose}>
        <Group align="end">
          <TextInput label="API key (client_id)" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />
          <Button type="submit">Show</Button>
        </Group>
      </form>
      {clientId && <KeyWebhook key={clientId} clientId={clientId} />}
    </Stack>
  );
}

function KeyWebhook({ clientId }: { clientId: string }) {
  const { data, error, refetch } = useQuery(PartnerWebhookDocument, { variables: { client_id: clientId } });
  const [url, setUrl] = useState<string | null>(null);
  const [save, saving] = useMutation(SetPartnerWebhookDocument);
  const [rotate, rotating] = useMutation(RotatePartnerWebhookSecretDocument);
  const [redeliver, redelivering] = useMutation(RedeliverWebhookDocument);
  if (error) return <ErrorAlert error={error} />;
  if (!data) return <Loading />;
  const shownUrl = url ?? data.apiKeyWebhook.webhook_url ?? "";
  const refusal = saving.error ?? rotating.error ?? redelivering.error;

  async function submitUrl(event: FormEvent) {
    event.preventDefault();
    await save({ variables: { input: { client_id: clientId, webhook_url: shownUrl } } }).catch(() => undefined);
  }
  async function again(id: string) {
    await redeliver({ variables: { id } }).catch(() => undefined);
    await refetch();
  }

  return (
    <Stack>
      <KeyRestriction permissions={data.apiKeyWebhook.permissions} storeIds={data.apiKeyWebhook.store_ids} />
      <form onSubmit={submitUrl}>
        <Group align="end">
          <TextInput label="Webhook URL" value={shownUrl} onChange={(e) => setUrl(e.currentTarget.value)} w={420} />
          <Button type="submit" loading={saving.loading}>
            Save URL
          </Button>
          <Button
            variant="default"
            loading={rotating.loading}
            onClick={() => rotate({ variables: { client_id: clientId } }).catch(() => undefined)}
          >
            Rotate secret
          </Button>
        </Group>
      </form>
      {refusal && <ErrorAlert error={refusal} />}
      {rotating.data && (
        <Alert title="New webhook secret: shown once" color="yellow">
          <Code>{rotating.data.rotateApiKeyWebhookSecret.webhook_secret}</Code>
          <Text size="sm">
            The previous secret signs too until{" "}
            <DateTime value={rotating.data.rotateApiKeyWebhookSecret.previous_secret_expires_at} />.
          </Text>
        </Alert>
      )}
      <Group justify="space-between">
        <Title order={3}>Dead letters</Title>
        <Button variant="default" size="xs" onClick={() => refetch()}>
          Refresh
        </Button>
      </Group>
      <DataTable
        label="Dead letters"
        empty="No dead letters."
        rows={data.partnerWebhookDeadLetters}
        rowKey={(delivery) => `dead-${delivery.id}`}
        columns={[
          ...deliveryColumns,
          {
            header: "",
            cell: (delivery) => (
              <Button size="xs" onClick={() => again(delivery.id)} aria-label={`Redeliver ${delivery.id}`}>
                Redeliver
              </Button>
            ),
          },
        ]}
      />
      <Title order={3}>Recent deliveries</Title>
      <DataTable
        label="Recent deliveries"
        empty="Nothing sent yet."
        rows={data.partnerWebhookDeliveries}
        rowKey={(delivery) => `delivery-${delivery.id}`}
        columns={deliveryColumns}
      />
    </Stack>
  );
}
