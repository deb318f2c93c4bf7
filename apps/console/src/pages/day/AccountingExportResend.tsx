import { useMutation, useQuery } from "@apollo/client/react";
import { Button, Group, Stack, Text, Title } from "@mantine/core";
import { DateTime } from "../../components/DateTime";
import { ErrorAlert } from "../../components/ErrorAlert";
import { StatusBadge } from "../../components/StatusBadge";
import { DayAccountingExportDocument, ResendDayAccountingExportDocument } from "../../graphql/graphql";

interface Props {
  merchantId: number;
  storeId: number;
  date: string;
}

/**
 * The store's day as the merchant's accounting export sent it (its file's delivery), and a button that builds the
 * file again and sends it now, as `npm run accounting-export -- resend` does. The server refuses a day not yet ended
 * or a merchant without an export, and the refusal shows here.
 */
export function AccountingExportResend({ merchantId, storeId, date }: Props) {
  const variables = { merchant_id: merchantId, store_id: storeId, date };
  const deliveries = useQuery(DayAccountingExportDocument, { variables });
  const [resend, resending] = useMutation(ResendDayAccountingExportDocument, {
    refetchQueries: [{ query: DayAccountingExportDocument, variables }],
    awaitRefetchQueries: true,
  });
  const delivery = deliveries.data?.accountingExportDeliveries[0];

  return (
    <Stack gap="xs">
      <Title order={3}>Accounting export</Title>
      <Group>
        <Text size="sm" data-testid="accounting-export-delivery">
          {delivery ? (
            <>
              {delivery.file_name}: <StatusBadge status={delivery.status} /> after {delivery.attempts} attempts
              {delivery.delivered_at && (
                <>
                  , delivered <DateTime value={delivery.delivered_at} />
                </>
              )}
            </>
          ) : (
            "No file sent for this day yet."
          )}
        </Text>
        <Button
          variant="default"
          loading={resending.loading}
          onClick={() => resend({ variables: { input: { store_id: storeId, date } } }).catch(() => undefined)}
        >
          Send the accounting file again
        </Button>
      </Group>
      {delivery?.last_error && <Text c="red">{delivery.last_error}</Text>}
      {deliveries.error && <ErrorAlert error={deliveries.error} />}
      {resending.error && <ErrorAlert error={resending.error} />}
    </Stack>
  );
}
