export {
  embeddedSmsRelayControl,
  type MessageSandboxSettings,
  messagesStateDir,
  readMessageSandboxSettings,
  sandboxMailbox,
  startMessageSandbox,
} from "./embedded";
export type { ReceivedMessage } from "./mailbox";
