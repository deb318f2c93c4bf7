import { Button, Group, Stack, Text, Textarea } from "@mantine/core";
import { useState } from "react";
import { DateTime } from "../../components/DateTime";
import { ErrorAlert } from "../../components/ErrorAlert";

interface Props {
  /** What is resolved, for the button's and the note's accessible names: "QR difference pdf_…", "card differences". */
  what: string;
  resolution: { resolved_at?: string | null; resolved_by?: string | null; resolution_note?: string | null };
  /** Whether the person may resolve it (the server refuses anyway). */
  allowed: boolean;
  resolve: (note: string) => Promise<unknown>;
}

/**
 * A reconciliation difference's resolution: who closed it, when and what they did; while open, "Resolve" for those
 * allowed, asking for the note the server requires (docs/decisions/console.md, "A difference is closed by a
 * resolution"). A refusal shows here and the difference stays open.
 */
export function DifferenceResolution({ what, resolution, allowed, resolve }: Props) {
  const [asking, setAsking] = useState(false);
  const [note, setNote] = useState("");
  const [saving, setSaving] = useState(false);
  const [refusal, setRefusal] = useState<unknown>(null);

  if (resolution.resolved_at)
    return (
      <Text size="sm" data-testid="resolution">
        Resolved by {resolution.resolved_by}, <DateTime value={resolution.resolved_at} />: {resolution.resolution_note}
      </Text>
    );
  if (!allowed) return <Text size="sm">Open</Text>;
  if (!asking)
    return (
      <Button size="xs" variant="default" aria-label={`Resolve ${what}`} onClick={() => setAsking(true)}>
        Resolve
      </Button>
    );

  async function save() {
    setSaving(true);
    setRefusal(null);
    try {
      await resolve(note);
      setAsking(false);
    } catch (error) {
      setRefusal(error);
    } finally {
      setSaving(false);
    }
  }
  return (
    <Stack gap={4}>
      <Textarea
        label={`What was done about the ${what}`}
        description="Required, up to 500 characters: refunded by hand, the acquirer corrected the file…"
        value={note}
        maxLength={500}
        onChange={(event) => setNote(event.currentTarget.value)}
      />
      <Group gap="xs">
        <Button size="xs" onClick={save} loading={saving} disabled={note.trim() === ""}>
          Save resolution
        </Button>
        <Button size="xs" variant="subtle" onClick={() => setAsking(false)}>
          Cancel
        </Button>
      </Group>
      {refusal !== null && <ErrorAlert error={refusal} />}
    </Stack>
  );
}
