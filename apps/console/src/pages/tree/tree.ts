import type { TreeNodeData } from "@mantine/core";
import type { MerchantBranchFragment, StoreLeafFragment, TenantTreeQuery } from "../../graphql/graphql";

/** What a node of the tree is, for its label; `value` is `<kind>:<id>`. */
export type NodeKind = "psp" | "merchant" | "area" | "store" | "device";

export interface TenantNode extends TreeNodeData {
  kind: NodeKind;
  name: string;
  code?: string;
  store?: StoreLeafFragment;
  device?: StoreLeafFragment["devices"][number];
  children?: TenantNode[];
}

const storeNode = (store: StoreLeafFragment): TenantNode => ({
  value: `store:${store.id}`,
  kind: "store",
  label: store.name,
  name: store.name,
  code: store.code,
  store,
  children: store.devices.map((device) => ({
    value: `device:${device.id}`,
    kind: "device",
    label: device.serial_number,
    name: device.serial_number,
    device,
  })),
});

/** A merchant's stores under their areas; stores in no area sit directly under the merchant. */
function merchantNode(merchant: MerchantBranchFragment): TenantNode {
  const areas = merchant.areas.map((area) => ({
    value: `area:${area.id}`,
    kind: "area" as const,
    label: area.name,
    name: area.name,
    children: merchant.stores.filter((store) => store.area_id === area.id).map(storeNode),
  }));
  const inAreas = new Set(merchant.areas.map((area) => area.id));
  return {
    value: `merchant:${merchant.id}`,
    kind: "merchant",
    label: merchant.name,
    name: merchant.name,
    code: merchant.code,
    children: [...areas, ...merchant.stores.filter((store) => !inAreas.has(store.area_id ?? "")).map(storeNode)],
  };
}

export function tenantTree(data: TenantTreeQuery): TenantNode[] {
  if (data.psps)
    return data.psps.nodes.map((psp) => ({
      value: `psp:${psp.id}`,
      kind: "psp",
      label: psp.name,
      name: psp.name,
      code: psp.code,
      children: psp.merchants.map(merchantNode),
    }));
  if (data.merchants) return data.merchants.nodes.map(merchantNode);
  return data.stores?.nodes.map(storeNode) ?? [];
}

/**
 * The nodes whose name or code holds the text (any case), with their ancestors; a node that matches keeps all it
 * holds.
 */
export function filterTree(nodes: TenantNode[], text: string): TenantNode[] {
  const needle = text.trim().toLowerCase();
  if (!needle) return nodes;
  return nodes.flatMap((node) => {
    if (node.name.toLowerCase().includes(needle) || node.code?.toLowerCase().includes(needle)) return [node];
    const children = filterTree(node.children ?? [], needle);
    return children.length > 0 ? [{ ...node, children }] : [];
  });
}

/** Every node down to the stores open; a store's devices open on demand. */
export function openToStores(nodes: TenantNode[], open: Record<string, boolean> = {}): Record<string, boolean> {
  for (const node of nodes) {
    if (node.kind === "store" || node.kind === "device") continue;
    open[node.value] = true;
    openToStores(node.children ?? [], open);
  }
  return open;
}
