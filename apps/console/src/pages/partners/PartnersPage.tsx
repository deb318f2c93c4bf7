import { useQuery } from "@apollo/client/react";
import { Anchor, Button, Code, Group, NumberInput, Stack, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { DataTable } from "../../components/DataTable";
import { DateTime } from "../../components/DateTime";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { PartnerKeysDocument } from "../../graphql/graphql";
import { useSession } from "../../session/useSession";
import { PartnerGrants } from "./PartnerGrants";

/**
 * A client partner (system operators, and the admins who grant it stores): its API keys with their scopes, each
 * linked to its webhook's recent deliveries and dead letters, and the merchants' grants that let it act on their
 * stores.
 */
export function PartnersPage() {
  const [params, setParams] = useSearchParams();
  const id = Number(params.get("id") ?? "");
  const [typed, setTyped] = useState<string | number>(Number.isSafeInteger(id) && id > 0 ? id : "");
  const { identity } = useSession();

  function choose(event: FormEvent) {
    event.preventDefault();
    setParams({ id: String(typed) });
  }

  return (
    <Stack>
      <Title order={2}>Client partner</Title>
      <form onSubmit={choose}>
        <Group align="end">
          <NumberInput label="Client partner id" value={typed} onChange={setTyped} min={1} allowDecimal={false} />
          <Button type="submit">Show</Button>
        </Group>
      </form>
      {id > 0 && identity?.tier === 0 && <PartnerKeys key={`keys-${id}`} id={id} />}
      {id > 0 && <PartnerGrants key={`grants-${id}`} id={id} />}
    </Stack>
  );
}

function PartnerKeys({ id }: { id: number }) {
  const { data, error } = useQuery(PartnerKeysDocument, { variables: { id } });
  if (error) return <ErrorAlert error={error} />;
  if (!data) return <Loading />;
  return (
    <Stack>
      <Title order={3}>API keys</Title>
      <DataTable
        label="API keys"
        empty="No keys."
        rows={data.clientPartnerApiKeys}
        rowKey={(key) => `key-${key.id}`}
        columns={[
          { header: "client_id", cell: (key) => <Code>{key.client_id}</Code> },
          { header: "Status", field: "status", cell: (key) => <StatusBadge status={key.status} /> },
          {
            header: "Scopes",
            field: "permissions",
            cell: (key) => (key.permissions.length === 0 ? "every operation" : key.permissions.join(", ")),
          },
          {
            header: "Stores",
            field: "store_ids",
            cell: (key) => (key.store_ids.length === 0 ? "every granted store" : key.store_ids.join(", ")),
          },
          { header: "Last used", cell: (key) => (key.last_used_at ? <DateTime value={key.last_used_at} /> : "never") },
          { header: "Expires", cell: (key) => <DateTime value={key.expires_at} /> },
          {
            header: "Webhook",
            cell: (key) => (
              <Anchor component={Link} to={`/webhooks?client_id=${encodeURIComponent(key.client_id)}`}>
                Deliveries and dead letters
              </Anchor>
            ),
          },
        ]}
      />
    </Stack>
  );
}
