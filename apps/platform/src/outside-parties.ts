import { completeMessageSettings, DEFAULT_MAIL_FROM, messageTransport } from "@pos-cloud/common/messages";
import { type MessageBus, openMessageBus } from "@pos-cloud/common/messaging";
import { startEmbeddedAcquirer } from "@pos-cloud/sandbox-acquirer";
import { startMessageSandbox } from "@pos-cloud/sandbox-messages";
import { startEmbeddedSandbox } from "@pos-cloud/sandbox-provider";
import { startEmbeddedSftp } from "@pos-cloud/sandbox-sftp";
import type { PlatformConfig } from "./environment";

export type OutsideParties = Awaited<ReturnType<typeof startOutsideParties>>;

/**
 * What stands in for the outside world when it is not configured: the sandbox QR provider, card acquirer, mail
 * server and SMS relay, and an SFTP server a merchant may point its accounting export at; and the bus (`givenBus`, else the configured one) and the message transport. `close` closes
 * the bus first.
 */
export async function startOutsideParties(config: PlatformConfig, givenBus?: MessageBus) {
  // First, as an external provider is there before the gateway: its address and secrets are known to what follows.
  const sandbox = await startEmbeddedSandbox({
    dataDir: config.dataDir,
    host: config.host,
    processingDelayMs: config.sandboxProcessingDelayMs ?? 0,
  });
  // Likewise the card acquirer of the settlement exchange, unless one is configured.
  const acquirer = config.acquirerFtpUrl
    ? undefined
    : await startEmbeddedAcquirer({ dataDir: config.dataDir, host: config.host }).catch(async (error: unknown) => {
        await sandbox.close();
        throw error;
      });
  // And the mail server and SMS relay for what is not configured.
  const messages = config.messages ?? { mailFrom: DEFAULT_MAIL_FROM };
  let messageSandbox: Awaited<ReturnType<typeof startMessageSandbox>> | undefined;
  let sftp: Awaited<ReturnType<typeof startEmbeddedSftp>> | undefined;
  let bus: MessageBus;
  try {
    sftp = await startEmbeddedSftp({ dataDir: config.dataDir, host: "127.0.0.1" });
    messageSandbox = completeMessageSettings(messages)
      ? undefined
      : await startMessageSandbox({ dataDir: config.dataDir, host: "127.0.0.1" });
    bus = givenBus ?? (await openMessageBus(config.messaging ?? { driver: "memory" }));
  } catch (error) {
    await messageSandbox?.close();
    await sftp?.close();
    await acquirer?.close();
    await sandbox.close();
    throw error;
  }
  const transport = messageTransport({
    smtpUrl: messages.smtpUrl ?? messageSandbox!.smtpUrl,
    mailFrom: messages.mailFrom,
    sms: messages.sms ?? { url: messageSandbox!.smsUrl, secret: messageSandbox!.smsSecret },
  });
  /** All but the bus, which a running platform closes before its subgraphs. */
  const closeParties = async () => {
    transport.close();
    await messageSandbox?.close();
    await sftp!.close();
    await acquirer?.close();
    await sandbox.close();
  };
  const close = async () => {
    await bus.close();
    await closeParties();
  };
  return { sandbox, acquirer, sftp: sftp!, bus, transport, closeParties, close };
}
