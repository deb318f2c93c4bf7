import { useQuery } from "@apollo/client/react";
import { Button, Group, Stack, Text, Title } from "@mantine/core";
import { useState } from "react";
import { DataTable } from "../../components/DataTable";
import { DateTime } from "../../components/DateTime";
import { ErrorAlert } from "../../components/ErrorAlert";
import { Loading } from "../../components/Loading";
import { UndeliverableMessagesDocument, type UndeliverableMessagesFragment } from "../../graphql/graphql";

const PAGE = 20;

/** One subgraph's messages given up on, a page at a time. */
function MessageSection(props: {
  title: string;
  source: string;
  page: UndeliverableMessagesFragment;
  offset: number;
  onOffset: (offset: number) => void;
}) {
  const { page, offset } = props;
  return (
    <Stack gap="xs">
      <Title order={3}>{props.title}</Title>
      <Text size="sm" role="status">
        {page.total_count} given up on
      </Text>
      <DataTable
        label={props.title}
        rows={page.nodes}
        rowKey={(message) => `message-${props.source}-${message.id}`}
        empty="No message given up on."
        columns={[
          { header: "Given up", cell: (message) => <DateTime value={message.given_up_at} /> },
          { header: "Queued", cell: (message) => <DateTime value={message.created_at} /> },
          { header: "Channel", field: "channel", cell: (message) => message.channel },
          { header: "What", field: "kind", cell: (message) => message.kind },
          { header: "To", field: "recipient", cell: (message) => message.recipient },
          { header: "Attempts", field: "attempts", cell: (message) => message.attempts },
          { header: "Last error", field: "last_error", cell: (message) => message.last_error },
        ]}
      />
      {(offset > 0 || page.page_info.has_next_page) && (
        <Group>
          <Button variant="default" disabled={offset === 0} onClick={() => props.onOffset(Math.max(0, offset - PAGE))}>
            Previous
          </Button>
          <Button
            variant="default"
            disabled={!page.page_info.has_next_page}
            onClick={() => props.onOffset(offset + PAGE)}
          >
            Next
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/**
 * The e-mails and SMS given up on after every attempt, the overview's undeliverable count, from each subgraph that
 * sends them: recipients masked, never a text (docs/decisions/console.md, "The messages given up on"). Nothing resends
 * them.
 */
export function MessagesPage() {
  const [offsets, setOffsets] = useState({ portal: 0, pos: 0 });
  const { data, error, loading } = useQuery(UndeliverableMessagesDocument, {
    variables: { portal_offset: offsets.portal, pos_offset: offsets.pos },
  });
  return (
    <Stack>
      <Title order={2}>Messages</Title>
      {error && <ErrorAlert error={error} />}
      {loading && !data && <Loading />}
      {data && (
        <>
          <MessageSection
            title="Login codes (portal)"
            source="portal"
            page={data.portalUndeliverableMessages}
            offset={offsets.portal}
            onOffset={(portal) => setOffsets({ ...offsets, portal })}
          />
          <MessageSection
            title="Receipts and operators' mails (POS)"
            source="pos"
            page={data.posUndeliverableMessages}
            offset={offsets.pos}
            onOffset={(pos) => setOffsets({ ...offsets, pos })}
          />
        </>
      )}
    </Stack>
  );
}
