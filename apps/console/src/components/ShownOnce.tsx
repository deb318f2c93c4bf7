import { Alert, Button, Code, Modal, Stack, Text } from "@mantine/core";
import { QRCodeSVG } from "qrcode.react";

/**
 * A secret the server shows once (an activation code, a new TOTP secret): as text and as a QR code to scan. Closing
 * the dialog forgets it.
 */
export function ShownOnce({
  title,
  secret,
  qrValue,
  note,
  onClose,
}: {
  title: string;
  secret: string;
  qrValue: string;
  note: string;
  onClose: () => void;
}) {
  return (
    <Modal opened onClose={onClose} title={title} centered>
      <Stack align="center">
        <Code fz="xl" data-testid="shown-once">
          {secret}
        </Code>
        <QRCodeSVG value={qrValue} size={192} marginSize={2} title={`QR code of ${title.toLowerCase()}`} role="img" />
        <Text size="sm">{note}</Text>
        <Alert color="yellow" role="status">
          Shown once: it cannot be displayed again after you close this dialog.
        </Alert>
        <Button onClick={onClose}>Done</Button>
      </Stack>
    </Modal>
  );
}
