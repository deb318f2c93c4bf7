import { useMutation, useQuery } from "@apollo/client/react";
import { Button, Group, NativeSelect, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { notifyDone, notifyError } from "../../components/notify";
import {
  type AppVersionRowFragment,
  AppVersionsPageDocument,
  PublishVersionDocument,
  type ReleaseStatus,
  SetRolloutDocument,
} from "../../graphql/graphql";
import { RegisterVersion } from "./RegisterVersion";

const releaseStatuses: ReleaseStatus[] = ["beta", "stable", "deprecated"];

/** Versions of the terminal apps: register, publish, set release status and rollout; which devices run each. */
export function AppUpdatesPage() {
  const { data, error } = useQuery(AppVersionsPageDocument);
  const page = data?.appVersions;
  return (
    <Stack>
      <Title order={2}>App updates</Title>
      {error && <ErrorAlert error={error} />}
      {page ? (
        <Table.ScrollContainer minWidth={900}>
          <Table striped aria-label="App versions">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>App</Table.Th>
                <Table.Th>Version</Table.Th>
                <Table.Th>Published</Table.Th>
                <Table.Th>Release and rollout</Table.Th>
                <Table.Th>Devices running it</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.nodes.map((version) => (
                <VersionRow key={version.id} version={version} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : (
        !error && <Loading />
      )}
      {page?.nodes.length === 0 && <Text>No versions registered yet.</Text>}
      <RegisterVersion />
    </Stack>
  );
}

function VersionRow({ version }: { version: AppVersionRowFragment }) {
  const label = `${version.app_name} ${version.version_name}`;
  const [status, setStatus] = useState<ReleaseStatus>(version.release_status);
  const [percentage, setPercentage] = useState(String(version.rollout_percentage));
  const [update, updating] = useMutation(SetRolloutDocument, {
    onError: notifyError,
    onCompleted: () => notifyDone(`${label}: rollout saved`),
  });
  const [publish, publishing] = useMutation(PublishVersionDocument, {
    variables: { id: version.id },
    onError: notifyError,
    onCompleted: () => notifyDone(`${label} published`),
  });

  function save(event: FormEvent) {
    event.preventDefault();
    const input = {
      rollout_percentage: Number(percentage),
      ...(status === version.release_status ? {} : { release_status: status }),
    };
    update({ variables: { id: version.id, input } });
  }

  return (
    <Table.Tr data-testid={`version-${version.app_name}-${version.version_code}`}>
      <Table.Td>{version.app_name}</Table.Td>
      <Table.Td>
        {version.version_name}
        <Text size="xs" c="dimmed">
          code {version.version_code}
          {version.is_mandatory && " · mandatory"}
        </Text>
      </Table.Td>
      <Table.Td>
        {version.published_at ? (
          new Date(version.published_at).toLocaleDateString()
        ) : (
          <Button size="xs" variant="default" loading={publishing.loading} onClick={() => publish()}>
            Publish {label}
          </Button>
        )}
      </Table.Td>
      <Table.Td>
        <form onSubmit={save} aria-label={`Rollout of ${label}`}>
          <Group gap="xs" align="end" wrap="nowrap">
            <NativeSelect
              label="Release"
              size="xs"
              data={releaseStatuses}
              value={status}
              onChange={(e) => setStatus(e.currentTarget.value as ReleaseStatus)}
            />
            <TextInput
              label="Rollout %"
              size="xs"
              type="number"
              w={90}
              value={percentage}
              onChange={(e) => setPercentage(e.currentTarget.value)}
            />
            <Button type="submit" size="xs" loading={updating.loading}>
              Save
            </Button>
          </Group>
        </form>
      </Table.Td>
      <Table.Td>
        {version.devices.length}
        {version.devices.length > 0 && (
          <Text size="xs" c="dimmed">
            {version.devices.map((device) => device.serial_number).join(", ")}
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
