import { Badge, Group, Text } from "@mantine/core";

/** What an API key may do (docs/decisions/gateway.md, "Restricted API keys"): its permissions and stores, or all. */
export function KeyRestriction({ permissions, storeIds }: { permissions: string[]; storeIds: number[] }) {
  return (
    <Group gap="xs" aria-label="API key restriction" role="group">
      <Text size="sm">May call:</Text>
      {permissions.length === 0 ? (
        <Text size="sm">every partner operation</Text>
      ) : (
        permissions.map((permission) => (
          <Badge key={permission} variant="light" tt="none">
            {permission}
          </Badge>
        ))
      )}
      <Text size="sm">
        {storeIds.length === 0 ? "for every store of its partner" : `for stores ${storeIds.join(", ")} only`}
      </Text>
    </Group>
  );
}
