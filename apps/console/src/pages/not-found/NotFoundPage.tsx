import { Alert } from "@mantine/core";

export function NotFoundPage() {
  return (
    <Alert color="yellow" title="No such page" role="alert">
      This address is not a page of the console.
    </Alert>
  );
}
