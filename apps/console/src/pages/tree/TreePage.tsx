import { useQuery } from "@apollo/client/react";
import { type RenderTreeNodePayload, Stack, Text, TextInput, Title, Tree, useTree } from "@mantine/core";
import { useDeferredValue, useEffect, useMemo, useState } from "react";
import { Link } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { StatusBadge } from "../../components/StatusBadge";
import { TenantTreeDocument, type TenantTreeQuery } from "../../graphql/graphql";
import { useSession } from "../../session/useSession";
import classes from "./TreePage.module.css";
import { filterTree, openToStores, type TenantNode, tenantTree } from "./tree";

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function TreeNodeLabel({ node, expanded, hasChildren, elementProps }: RenderTreeNodePayload) {
  const tenant = node as TenantNode;
  const store = tenant.store;
  return (
    <div {...elementProps}>
      <span className={classes.label}>
        {hasChildren && <span aria-hidden>{expanded ? "▾" : "▸"}</span>}
        <span className={classes.kind}>{tenant.kind}</span>
        {store ? (
          <>
            <Link className={classes.link} to={`/stores/${store.id}`} onClick={(e) => e.stopPropagation()}>
              {store.name}
            </Link>
            <span className={classes.dimmed}>{store.code}</span>
            <span>
              {count(store.open_orders_count, "open order")} · {count(store.payment_intents_count, "payment intent")} ·{" "}
              {count(store.devices.length, "device")}
            </span>
          </>
        ) : (
          <span>
            {tenant.name} {tenant.code && <span className={classes.dimmed}>{tenant.code}</span>}
          </span>
        )}
        {tenant.kind === "device" && <StatusBadge status={tenant.device?.status} />}
      </span>
    </div>
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

/**
 * User Timing of the tree's first render: from the answer's arrival (`tenant-tree:answer`) to the first frame after
 * the tree is in the document (`tenant-tree:render`), which the browser test reads for 400 stores.
 */
function useRenderTiming() {
  useMemo(() => performance.mark("tenant-tree:answer"), []);
  useEffect(() => {
    requestAnimationFrame(() => performance.measure("tenant-tree:render", "tenant-tree:answer"));
  }, []);
}

function TenantTree({ data }: { data: TenantTreeQuery }) {
  useRenderTiming();
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
