import { useQuery } from "@apollo/client/react";
import {
  Anchor,
  Badge,
  Group,
  type RenderTreeNodePayload,
  Stack,
  Text,
  TextInput,
  Title,
  Tree,
  useTree,
} from "@mantine/core";
import { useDeferredValue, useMemo, useState } from "react";
import { Link } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { TenantTreeDocument, type TenantTreeQuery } from "../../graphql/graphql";
import { useSession } from "../../session/useSession";
import { filterTree, openToStores, type TenantNode, tenantTree } from "./tree";

function TreeNodeLabel({ node, expanded, hasChildren, elementProps }: RenderTreeNodePayload) {
  const tenant = node as TenantNode;
  const store = tenant.store;
  return (
    <Group gap="xs" wrap="nowrap" {...elementProps}>
      {hasChildren && <Text aria-hidden>{expanded ? "▾" : "▸"}</Text>}
      <Text size="xs" c="dimmed" tt="uppercase" w={64}>
        {tenant.kind}
      </Text>
      {store ? (
        <>
          <Anchor component={Link} to={`/stores/${store.id}`} onClick={(e) => e.stopPropagation()}>
            {store.name}
          </Anchor>
          <Text size="sm" c="dimmed">
            {store.code}
          </Text>
          <Badge variant="light" color="blue">
            {store.open_orders_count} open orders
          </Badge>
          <Badge variant="light" color="grape">
            {store.payment_intents_count} payment intents
          </Badge>
          <Badge variant="light" color="gray">
            {store.devices.length} devices
          </Badge>
        </>
      ) : (
        <Text size="sm">
          {tenant.name}
          {tenant.code && (
            <Text span c="dimmed">
              {" "}
              {tenant.code}
            </Text>
          )}
        </Text>
      )}
      {tenant.kind === "device" && <StatusBadge status={tenant.device?.status} />}
    </Group>
  );
}

/** PSP > merchant > area > store > device, as far up as the caller reaches, read in one request. */
export function TreePage() {
  const { identity } = useSession();
  const tier = identity?.tier ?? 6;
  const { data, error } = useQuery(TenantTreeDocument, {
    variables: { fromPsps: tier <= 1, fromMerchants: tier === 2, fromStores: tier >= 3 },
  });
  const page = data?.psps ?? data?.merchants ?? data?.stores;
  return (
    <Stack>
      <Title order={2}>Tenant tree</Title>
      {error && <ErrorAlert error={error} />}
      {page && page.total_count > page.nodes.length && (
        <Text size="sm" c="dimmed">
          Showing the first {page.nodes.length} of {page.total_count}.
        </Text>
      )}
      {data ? <TenantTree data={data} /> : !error && <Loading />}
    </Stack>
  );
}

function TenantTree({ data }: { data: TenantTreeQuery }) {
  const all = useMemo(() => tenantTree(data), [data]);
  const [filter, setFilter] = useState("");
  const deferredFilter = useDeferredValue(filter);
  const shown = useMemo(() => filterTree(all, deferredFilter), [all, deferredFilter]);
  const tree = useTree({ initialExpandedState: openToStores(all) });
  return (
    <>
      <TextInput
        label="Filter by name or code"
        value={filter}
        onChange={(e) => setFilter(e.currentTarget.value)}
        maw={360}
      />
      {shown.length === 0 ? (
        <Text>Nothing matches.</Text>
      ) : (
        <Tree data={shown} tree={tree} renderNode={TreeNodeLabel} aria-label="Tenant tree" />
      )}
    </>
  );
}
