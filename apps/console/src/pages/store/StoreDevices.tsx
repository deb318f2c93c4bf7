import { useMutation } from "@apollo/client/react";
import { Button, Group, Paper, Table, Text, Title } from "@mantine/core";
import { lazy, Suspense, useState } from "react";
import { notifyError } from "../../components/notify";
import { StatusBadge } from "../../components/StatusBadge";
import {
  IssueStoreActivationCodeDocument,
  type IssueStoreActivationCodeMutation,
  ResumeDeviceDocument,
  type StoreDeviceFragment,
  type StorePageQuery,
  SuspendDeviceDocument,
} from "../../graphql/graphql";
import { may } from "../../session/permissions";
import { useSession } from "../../session/useSession";

// The QR code's library loads when a code is issued, not with the page.
const ShownOnce = lazy(async () => ({ default: (await import("../../components/ShownOnce")).ShownOnce }));

type Store = NonNullable<StorePageQuery["store"]>;
type Issued = IssueStoreActivationCodeMutation["issueActivationCode"];

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "never");

/** What a terminal scans: the code and where to register with it (POST /api/v1/device/provision/register). */
const activationQr = (issued: Issued) =>
  JSON.stringify({ activation_code: issued.activation_code, api_url: `${window.location.origin}/api/v1` });

/** The store's terminals with their last reports; L0–L4 issue activation codes and suspend or resume terminals. */
export function StoreDevices({ store }: { store: Store }) {
  const { identity } = useSession();
  const manages = identity !== null && may.manageDevices(identity);
  const [issued, setIssued] = useState<Issued | null>(null);
  const [issue, issueState] = useMutation(IssueStoreActivationCodeDocument);

  async function issueCode() {
    const { data } = await issue({ variables: { store_id: store.id } }).catch((error) => {
      notifyError(error);
      return { data: undefined };
    });
    if (data) setIssued(data.issueActivationCode);
  }

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="devices-title">
      <Group justify="space-between" mb="sm">
        <Title order={3} id="devices-title">
          Terminals
        </Title>
        {manages && (
          <Button onClick={issueCode} loading={issueState.loading}>
            Issue activation code
          </Button>
        )}
      </Group>
      {store.devices.length === 0 ? (
        <Text>No terminals yet.</Text>
      ) : (
        <Table.ScrollContainer minWidth={800}>
          <Table striped aria-labelledby="devices-title">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Serial</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Last seen</Table.Th>
                <Table.Th>Battery</Table.Th>
                <Table.Th>Paper</Table.Th>
                <Table.Th>App versions</Table.Th>
                {manages && <Table.Th>Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {store.devices.map((device) => (
                <DeviceRow key={device.id} device={device} manages={manages} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {issued && (
        <Suspense>
          <ShownOnce
            title="Activation code"
            secret={issued.activation_code}
            qrValue={activationQr(issued)}
            note={`Scan it on the new terminal, or type it there, before ${when(issued.expires_at)}. The terminal joins ${store.name} at once.`}
            onClose={() => setIssued(null)}
          />
        </Suspense>
      )}
    </Paper>
  );
}

function DeviceRow({ device, manages }: { device: StoreDeviceFragment; manages: boolean }) {
  const [suspend, suspending] = useMutation(SuspendDeviceDocument, { onError: notifyError });
  const [resume, resuming] = useMutation(ResumeDeviceDocument, { onError: notifyError });
  const variables = { id: device.id };
  return (
    <Table.Tr data-testid={`device-${device.serial_number}`}>
      <Table.Td>
        {device.serial_number}
        <Text size="xs" c="dimmed">
          {device.model}
        </Text>
      </Table.Td>
      <Table.Td>
        <StatusBadge status={device.status} />
      </Table.Td>
      <Table.Td>{when(device.last_connected_at)}</Table.Td>
      <Table.Td>
        {device.battery_level === null || device.battery_level === undefined ? "–" : `${device.battery_level}%`}
      </Table.Td>
      <Table.Td>{device.paper_status ?? "–"}</Table.Td>
      <Table.Td>
        {device.app_versions.length === 0
          ? "–"
          : device.app_versions
              .map((app) => `${app.app_name ?? "app"} ${app.version_name ?? `#${app.version_code}`}`)
              .join(", ")}
      </Table.Td>
      {manages && (
        <Table.Td>
          {device.status === "active" && (
            <Button size="xs" variant="default" loading={suspending.loading} onClick={() => suspend({ variables })}>
              Suspend {device.serial_number}
            </Button>
          )}
          {device.status === "suspended" && (
            <Button size="xs" variant="default" loading={resuming.loading} onClick={() => resume({ variables })}>
              Resume {device.serial_number}
            </Button>
          )}
        </Table.Td>
      )}
    </Table.Tr>
  );
}
