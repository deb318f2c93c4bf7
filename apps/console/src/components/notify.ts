import { notifications } from "@mantine/notifications";
import { describeError } from "./ErrorAlert";

/** Mantine's close button shows only an icon: a screen reader needs its name. */
const closeButtonProps = { "aria-label": "Dismiss" };

/** The server's refusal of an action, as its code's title and its message. */
export function notifyError(error: unknown) {
  const { title, message } = describeError(error);
  notifications.show({ color: "red", title, message, closeButtonProps });
}

export function notifyDone(message: string) {
  notifications.show({ color: "green", message, closeButtonProps });
}
