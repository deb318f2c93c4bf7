import { useMutation, useQuery } from "@apollo/client/react";
import { Button, Group, NumberInput, Stack, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { DataTable } from "../../components/DataTable";
import { DateTime } from "../../components/DateTime";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { GrantToPartnerDocument, PartnerGrantsDocument, RevokeGrantOfPartnerDocument } from "../../graphql/graphql";

/** Store ids as typed, comma- or space-separated; none: the whole merchant. The server checks each. */
const storeIdsOf = (text: string) => {
  const ids = text.split(/[\s,]+/).filter((part) => part !== "");
  return ids.length === 0 ? null : ids.map(Number);
};

/** The merchants' grants to the partner: listed, granted (a merchant or chosen stores), revoked. */
export function PartnerGrants({ id }: { id: number }) {
  const { data, error, refetch } = useQuery(PartnerGrantsDocument, { variables: { id } });
  const [merchantId, setMerchantId] = useState<string | number>("");
  const [storeIds, setStoreIds] = useState("");
  const [grant, granting] = useMutation(GrantToPartnerDocument);
  const [revoke, revoking] = useMutation(RevokeGrantOfPartnerDocument);
  if (error) return <ErrorAlert error={error} />;
  if (!data) return <Loading />;
  const refusal = granting.error ?? revoking.error;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const input = { merchant_id: Number(merchantId), store_ids: storeIdsOf(storeIds) };
    const done = await grant({ variables: { id, input } }).catch(() => undefined);
    if (done) await refetch();
  }
  async function end(grantId: string) {
    await revoke({ variables: { id, grant: grantId } }).catch(() => undefined);
    await refetch();
  }

  return (
    <Stack>
      <Title order={3}>Grants</Title>
      <form onSubmit={submit}>
        <Group align="end">
          <NumberInput label="Merchant id" value={merchantId} onChange={setMerchantId} min={1} allowDecimal={false} />
          <TextInput
            label="Store ids (none: the whole merchant)"
            value={storeIds}
            onChange={(e) => setStoreIds(e.currentTarget.value)}
          />
          <Button type="submit" loading={granting.loading}>
            Grant
          </Button>
        </Group>
      </form>
      {refusal && <ErrorAlert error={refusal} />}
      <DataTable
        label="Grants"
        empty="No grants: this partner acts on no store."
        rows={data.clientPartnerGrants.nodes}
        rowKey={(row) => `grant-${row.id}`}
        columns={[
          { header: "Merchant", field: "merchant", cell: (row) => row.merchant_id },
          { header: "Store", field: "store", cell: (row) => row.store_id ?? "every store" },
          { header: "Status", field: "status", cell: (row) => <StatusBadge status={row.status} /> },
          { header: "Granted", cell: (row) => <DateTime value={row.granted_at} /> },
          { header: "Revoked", cell: (row) => (row.revoked_at ? <DateTime value={row.revoked_at} /> : "") },
          {
            header: "",
            cell: (row) =>
              row.status === "active" && (
                <Button size="xs" variant="default" onClick={() => end(row.id)} aria-label={`Revoke ${row.id}`}>
                  Revoke
                </Button>
              ),
          },
        ]}
      />
    </Stack>
  );
}
