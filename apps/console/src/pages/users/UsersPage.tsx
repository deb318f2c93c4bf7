import { useMutation, useQuery } from "@apollo/client/react";
import { Button, Group, Stack, Table, Text, Title } from "@mantine/core";
import { lazy, Suspense, useState } from "react";
import { useNavigate } from "react-router";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { notifyDone, notifyError } from "../../components/notify";
import { isLocked, UserCells, UserHeadCells } from "../../components/UserCells";
import {
  ImpersonateUserDocument,
  LockManagedUserDocument,
  type ManagedUserFragment,
  ResetManagedUserMfaDocument,
  UnlockManagedUserDocument,
  UsersPageDocument,
} from "../../graphql/graphql";
import { client } from "../../session/client";
import { may } from "../../session/permissions";
import { session } from "../../session/session";
import { useSession } from "../../session/useSession";
import { CreateUser, type NewTotp } from "./CreateUser";

const ShownOnce = lazy(async () => ({ default: (await import("../../components/ShownOnce")).ShownOnce }));

/** Users below the caller: create, lock and unlock, reset MFA; L0 and L1 can act as one (impersonation). */
export function UsersPage() {
  const { data, error } = useQuery(UsersPageDocument);
  const [totp, setTotp] = useState<NewTotp | null>(null);
  const showTotp = (user: { login_id: string; totp_secret?: string | null; totp_uri?: string | null }) => {
    if (user.totp_secret && user.totp_uri)
      setTotp({ login_id: user.login_id, totp_secret: user.totp_secret, totp_uri: user.totp_uri });
  };
  const page = data?.users;
  return (
    <Stack>
      <Title order={2}>Users</Title>
      {error && <ErrorAlert error={error} />}
      {page && page.total_count > page.nodes.length && (
        <Text size="sm" c="dimmed">
          Showing the first {page.nodes.length} of {page.total_count}.
        </Text>
      )}
      {page ? (
        <Table.ScrollContainer minWidth={800}>
          <Table striped aria-label="Users">
            <Table.Thead>
              <Table.Tr>
                <UserHeadCells />
                <Table.Th>MFA</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.nodes.map((user) => (
                <UserRow key={user.id} user={user} onNewTotp={showTotp} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : (
        !error && <Loading />
      )}
      <CreateUser onNewTotp={showTotp} />
      {totp && (
        <Suspense>
          <ShownOnce
            title="New TOTP secret"
            secret={totp.totp_secret}
            qrValue={totp.totp_uri}
            note={`Enrol it in ${totp.login_id}'s authenticator app: scan the QR code or type the secret.`}
            onClose={() => setTotp(null)}
          />
        </Suspense>
      )}
    </Stack>
  );
}

function UserRow({ user, onNewTotp }: { user: ManagedUserFragment; onNewTotp: (user: NewTotp) => void }) {
  const { identity } = useSession();
  const navigate = useNavigate();
  const variables = { id: user.id };
  const [lock] = useMutation(LockManagedUserDocument, { variables, onError: notifyError });
  const [unlock] = useMutation(UnlockManagedUserDocument, { variables, onError: notifyError });
  const [resetMfa] = useMutation(ResetManagedUserMfaDocument, {
    variables,
    onError: notifyError,
    onCompleted: (data) => onNewTotp(data.resetUserMfa as NewTotp),
  });
  const [impersonate] = useMutation(ImpersonateUserDocument, {
    variables: { target_user_id: user.id },
    onError: notifyError,
  });
  const locked = isLocked(user);

  async function actAs() {
    const { data } = await impersonate();
    if (!data) return;
    session.impersonate(data.impersonateUser);
    await client.clearStore();
    notifyDone(`You are acting as ${user.login_id}`);
    navigate("/tree");
  }

  return (
    <Table.Tr data-testid={`user-${user.login_id}`}>
      <UserCells user={user} />
      <Table.Td>{user.mfa_enabled ? user.mfa_channel : "none"}</Table.Td>
      <Table.Td>
        <Group gap="xs">
          {locked ? (
            <Button size="xs" variant="default" onClick={() => unlock()}>
              Unlock {user.login_id}
            </Button>
          ) : (
            user.status === "active" && (
              <Button size="xs" variant="default" onClick={() => lock()}>
                Lock {user.login_id}
              </Button>
            )
          )}
          {user.tier <= 4 && (
            <Button size="xs" variant="default" onClick={() => resetMfa()}>
              Reset MFA of {user.login_id}
            </Button>
          )}
          {identity && may.impersonate(identity) && user.status === "active" && (
            <Button size="xs" color="red" variant="light" onClick={actAs}>
              Act as {user.login_id}
            </Button>
          )}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}
