import { useMutation } from "@apollo/client/react";
import { Button, Group, NativeSelect, Paper, PasswordInput, Table, Text, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { ErrorAlert } from "../../components/ErrorAlert";
import { notifyDone, notifyError } from "../../components/notify";
import { isLocked, UserCells, UserHeadCells } from "../../components/UserCells";
import { CreateStaffDocument, type Role, type StorePageQuery, UnlockStaffDocument } from "../../graphql/graphql";
import { may } from "../../session/permissions";
import { useSession } from "../../session/useSession";

type Store = NonNullable<StorePageQuery["store"]>;

const staffRoles: { value: Role; label: string }[] = [
  { value: "STAFF_LEADER", label: "Staff leader (L5)" },
  { value: "STAFF", label: "Staff (L6)" },
];

/** The store's people below the caller; L4 and above create staff with their PIN and lift PIN lockouts. */
export function StoreStaff({ store }: { store: Store }) {
  const { identity } = useSession();
  const manages = identity !== null && may.manageUsers(identity);
  const [unlock] = useMutation(UnlockStaffDocument, {
    onError: notifyError,
    onCompleted: (data) => notifyDone(`${data.unlockUser.login_id} unlocked`),
  });
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="staff-title">
      <Title order={3} id="staff-title" mb="sm">
        Staff
      </Title>
      {store.staff.length === 0 ? (
        <Text>No staff you manage.</Text>
      ) : (
        <Table striped aria-labelledby="staff-title">
          <Table.Thead>
            <Table.Tr>
              <UserHeadCells />
              {manages && <Table.Th>Actions</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {store.staff.map((member) => {
              const locked = isLocked(member);
              return (
                <Table.Tr key={member.id}>
                  <UserCells user={member} />
                  {manages && (
                    <Table.Td>
                      {locked && (
                        <Button size="xs" variant="default" onClick={() => unlock({ variables: { id: member.id } })}>
                          Unlock {member.login_id}
                        </Button>
                      )}
                    </Table.Td>
                  )}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      {manages && <CreateStaff store={store} />}
    </Paper>
  );
}

function CreateStaff({ store }: { store: Store }) {
  const [role, setRole] = useState<Role>("STAFF");
  const [name, setName] = useState("");
  const [pin, setPin] = useState("");
  const [create, state] = useMutation(CreateStaffDocument, { refetchQueries: ["StorePage"] });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const input = { role, name: name.trim() || null, pin, store_id: store.id };
    const { data } = await create({ variables: { input } }).catch(() => ({ data: undefined }));
    if (!data) return;
    notifyDone(`Created ${data.createUser.login_id}: they log in with this login id and their PIN`);
    setName("");
    setPin("");
  }

  return (
    <form onSubmit={submit} aria-label="New staff member">
      <Title order={4} mt="md" mb="xs">
        New staff member
      </Title>
      <Group align="end">
        <NativeSelect
          label="Role"
          data={staffRoles}
          value={role}
          onChange={(e) => setRole(e.currentTarget.value as Role)}
        />
        <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        <PasswordInput
          label="PIN (6 digits)"
          value={pin}
          onChange={(e) => setPin(e.currentTarget.value)}
          inputMode="numeric"
          autoComplete="new-password"
          required
          visibilityToggleButtonProps={{ "aria-label": "Show PIN" }}
        />
        <Button type="submit" loading={state.loading}>
          Create staff member
        </Button>
      </Group>
      {state.error && <ErrorAlert error={state.error} />}
    </form>
  );
}
