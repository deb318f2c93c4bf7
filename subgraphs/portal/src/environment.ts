import { loadSubgraphEnvironment, parseEnvironment, settings } from "@pos-cloud/common";
import { messagesFromEnvironment } from "@pos-cloud/common/messages";
import { z } from "zod";

/**
 * The portal subgraph's standalone configuration: a subgraph's, plus the platform's public address (the edge's),
 * which device client assertions may name as their audience, and the mail server and SMS relay of MFA codes (SMTP_URL,
 * SMS_RELAY_URL, SMS_RELAY_SECRET, MAIL_FROM; without them every code fails to leave and ends as an alert).
 */
export function loadPortalEnvironment(env: NodeJS.ProcessEnv = process.env) {
  const { PUBLIC_URL, API_AUDIENCE } = parseEnvironment(
    z.object({ PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(), API_AUDIENCE: settings.apiAudience }),
    env,
  );
  return {
    ...loadSubgraphEnvironment(env),
    publicUrl: PUBLIC_URL,
    apiAudience: API_AUDIENCE,
    messages: messagesFromEnvironment(env),
  };
}
