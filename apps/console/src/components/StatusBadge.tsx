import { Badge } from "@mantine/core";

const colors: Record<string, string> = {
  active: "green",
  pending_activation: "yellow",
  unprovisioned: "gray",
  suspended: "orange",
  decommissioned: "dark",
  inactive: "gray",
  open: "blue",
  closed: "green",
  completed: "green",
  succeeded: "green",
  delivered: "green",
  matched: "green",
  paid: "green",
  processing: "yellow",
  requires_action: "yellow",
  partial: "yellow",
  running: "yellow",
  refunded: "grape",
  failed: "red",
  dead: "red",
  mismatch: "red",
  cancelled: "dark",
};

/** A status as the API spells it, coloured by what it means for the person looking. */
export function StatusBadge({ status }: { status?: string | null }) {
  if (!status) return null;
  return (
    <Badge variant="light" color={colors[status] ?? "gray"}>
      {status.replaceAll("_", " ")}
    </Badge>
  );
}
