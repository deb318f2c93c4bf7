import { Alert, Button, Group, Text } from "@mantine/core";
import { useLogOut } from "../session/useLogOut";
import { useSession } from "../session/useSession";

/** Cannot be missed: whoever acts as another user sees whom, and the way back, on every page. */
export function ImpersonationBanner() {
  const { identity } = useSession();
  const { endImpersonation, loading } = useLogOut();
  return (
    <Alert color="red" variant="filled" title="You are acting as another user" mb="md" role="alert">
      <Group justify="space-between">
        <Text size="sm">
          Every action is taken as this {identity?.role} user (id {identity?.user_id}) and audit-logged with your id.
        </Text>
        <Button color="dark" onClick={endImpersonation} loading={loading}>
          End impersonation
        </Button>
      </Group>
    </Alert>
  );
}
