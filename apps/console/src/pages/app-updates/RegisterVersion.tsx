import { useMutation } from "@apollo/client/react";
import { Button, Checkbox, NativeSelect, Paper, SimpleGrid, Textarea, TextInput, Title } from "@mantine/core";
import { type FormEvent, useState } from "react";
import { ErrorAlert } from "../../components/ErrorAlert";
import { notifyDone } from "../../components/notify";
import { RegisterVersionDocument } from "../../graphql/graphql";

const apps = ["business-app", "qr-app", "credit-card-app"];
const blank = {
  app_name: "business-app",
  version_code: "",
  version_name: "",
  apk_url: "",
  apk_size: "",
  apk_checksum: "",
  min_os_version: "",
  release_notes: "",
};

/** A new build of a terminal app; the server checks every field and names the one it refuses. */
export function RegisterVersion() {
  const [fields, setFields] = useState(blank);
  const [mandatory, setMandatory] = useState(false);
  const [register, state] = useMutation(RegisterVersionDocument, { refetchQueries: ["AppVersionsPage"] });
  const field = (name: keyof typeof blank) => ({
    value: fields[name],
    onChange: (event: { currentTarget: { value: string } }) =>
      setFields((current) => ({ ...current, [name]: event.currentTarget.value })),
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const input = {
      ...fields,
      version_code: Number(fields.version_code),
      apk_size: Number(fields.apk_size),
      is_mandatory: mandatory,
    };
    const { data } = await register({ variables: { input } }).catch(() => ({ data: undefined }));
    if (!data) return;
    notifyDone(
      `Registered ${data.registerAppVersion.app_name} ${data.registerAppVersion.version_name} (beta, rollout 0)`,
    );
    setFields(blank);
    setMandatory(false);
  }

  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby="register-title">
      <Title order={3} id="register-title" mb="sm">
        Register a version
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        <NativeSelect label="App" data={apps} {...field("app_name")} />
        <TextInput label="Version code" type="number" required {...field("version_code")} />
        <TextInput label="Version name" placeholder="2.4.0" required {...field("version_name")} />
        <TextInput label="Minimum Android version" placeholder="11" required {...field("min_os_version")} />
        <TextInput label="APK URL (https)" required {...field("apk_url")} />
        <TextInput label="APK size (bytes)" type="number" required {...field("apk_size")} />
        <TextInput label="APK checksum" placeholder="sha256:…" required {...field("apk_checksum")} />
        <Checkbox
          label="Mandatory"
          mt="xl"
          checked={mandatory}
          onChange={(event) => setMandatory(event.currentTarget.checked)}
        />
      </SimpleGrid>
      <Textarea label="Release notes" mt="sm" {...field("release_notes")} />
      {state.error && <ErrorAlert error={state.error} />}
      <Button type="submit" mt="sm" loading={state.loading}>
        Register version
      </Button>
    </Paper>
  );
}
