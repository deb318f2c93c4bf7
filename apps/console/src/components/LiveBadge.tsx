import { Badge } from "@mantine/core";
import { useLiveStatus } from "../session/live";

const shown = {
  connecting: { color: "gray", label: "Connecting…" },
  live: { color: "green", label: "Live" },
  reconnecting: { color: "orange", label: "Reconnecting…" },
} as const;

/** Whether a live view is receiving the platform's events now; announced to screen readers as it changes. */
export function LiveBadge() {
  const { color, label } = shown[useLiveStatus()];
  return (
    <Badge color={color} variant="light" role="status" aria-live="polite" data-testid="live-status">
      {label}
    </Badge>
  );
}
