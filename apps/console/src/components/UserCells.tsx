import { Badge, Table } from "@mantine/core";

interface UserState {
  login_id: string;
  name?: string | null;
  role: string;
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

/** The columns every table of users starts with: login id, name, role, status. */
export function UserHeadCells() {
  return (
    <>
      <Table.Th>Login id</Table.Th>
      <Table.Th>Name</Table.Th>
      <Table.Th>Role</Table.Th>
      <Table.Th>Status</Table.Th>
    </>
  );
}

export function UserCells({ user }: { user: UserState }) {
  return (
    <>
      <Table.Td>{user.login_id}</Table.Td>
      <Table.Td>{user.name ?? "–"}</Table.Td>
      <Table.Td>{user.role}</Table.Td>
      <Table.Td>
        <UserStatusBadge user={user} />
      </Table.Td>
    </>
  );
}
