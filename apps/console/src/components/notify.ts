import { notifications } from "@mantine/notifications";
import { describeError } from "./ErrorAlert";

/** The server's refusal of an action, as its code's title and its message. */
export function notifyError(error: unknown) {
  const { title, message } = describeError(error);
  notifications.show({ color: "red", title, message });
}

export function notifyDone(message: string) {
  notifications.show({ color: "green", message });
}
