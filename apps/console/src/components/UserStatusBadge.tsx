import { Badge } from "@mantine/core";

interface UserState {
  status: string;
  pin_locked: boolean;
  locked_until?: string | null;
}

/** Locked by an administrator, after five wrong PINs, or for 15 minutes after five wrong passwords. */
export const isLocked = (user: UserState) =>
  user.status === "locked" || user.pin_locked || Boolean(user.locked_until && new Date(user.locked_until) > new Date());

export function UserStatusBadge({ user }: { user: UserState }) {
  return isLocked(user) ? (
    <Badge variant="dot" color="red">
      locked
    </Badge>
  ) : (
    <Badge variant="dot">{user.status}</Badge>
  );
}
