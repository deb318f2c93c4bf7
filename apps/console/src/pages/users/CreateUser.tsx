import { useMutation } from "@apollo/client/react";
import { Button, Group, NativeSelect, Paper, PasswordInput, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { ErrorAlert } from "../../components/ErrorAlert";
import { notifyDone } from "../../components/notify";
import { CreateManagedUserDocument, type Role } from "../../graphql/graphql";
import { tiers } from "../../session/session";
import { useSession } from "../../session/useSession";

/** A new TOTP secret the server answered once, to enrol in an authenticator app. */
export interface NewTotp {
  login_id: string;
  totp_secret: string;
  totp_uri: string;
}

/** Which place a role is created in: the one tenant id its tier names. */
const placeOf = (tier: number) =>
  tier === 1 ? "psp_id" : tier === 2 ? "merchant_id" : tier === 3 ? "area_id" : tier >= 4 ? "store_id" : null;

const placeLabels = { psp_id: "PSP id", merchant_id: "Merchant id", area_id: "Area id", store_id: "Store id" };

/** A user of a tier below the caller's; the login id is the server's, the TOTP secret is shown once. */
export function CreateUser({ onNewTotp }: { onNewTotp: (user: NewTotp) => void }) {
  const { identity } = useSession();
  const creatable = (Object.keys(tiers) as Role[]).filter((role) => identity && tiers[role] > identity.tier);
  const [role, setRole] = useState<Role>(creatable.at(-1) ?? "STAFF");
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [secret, setSecret] = useState("");
  const tier = tiers[role];
  const place = placeOf(tier);
  const own = place && identity ? identity[place] : null;
  const [placeId, setPlaceId] = useState("");
  const [create, state] = useMutation(CreateManagedUserDocument, { refetchQueries: ["UsersPage"] });
  if (!identity || creatable.length === 0) return null;
  const usesPin = tier >= 5;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const chosen = placeId.trim() || (own === null ? "" : String(own));
    const input = {
      role,
      name: name.trim() || null,
      email: email.trim() || null,
      ...(usesPin ? { pin: secret } : { password: secret }),
      ...(place ? { [place]: place === "area_id" ? chosen : Number(chosen) } : {}),
    };
    const { data } = await create({ variables: { input } }).catch(() => ({ data: undefined }));
    if (!data) return;
    notifyDone(`Created ${data.createUser.login_id}`);
    if (data.createUser.totp_secret) onNewTotp(data.createUser as NewTotp);
    setName("");
    setEmail("");
    setSecret("");
  }

  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby="new-user-title">
      <Title order={3} id="new-user-title" mb="sm">
        New user
      </Title>
      <Group align="end">
        <NativeSelect
          label="Role"
          data={creatable.map((value) => ({ value, label: `${value} (L${tiers[value]})` }))}
          value={role}
          onChange={(e) => setRole(e.currentTarget.value as Role)}
        />
        {place && (
          <TextInput
            label={placeLabels[place]}
            placeholder={own === null ? undefined : String(own)}
            value={placeId}
            onChange={(e) => setPlaceId(e.currentTarget.value)}
          />
        )}
        <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
        {!usesPin && (
          <TextInput label="E-mail" type="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
        )}
        <PasswordInput
          label={usesPin ? "PIN (6 digits)" : "Password (12 characters or more)"}
          value={secret}
          onChange={(e) => setSecret(e.currentTarget.value)}
          autoComplete="new-password"
          required
          visibilityToggleButtonProps={{ "aria-label": usesPin ? "Show PIN" : "Show password" }}
        />
        <Button type="submit" loading={state.loading}>
          Create user
        </Button>
      </Group>
      {state.error && <ErrorAlert error={state.error} />}
    </Paper>
  );
}
