import {
  DEVICE_TOKEN_ISSUER,
  loadTypeDefs,
  mergeResolvers,
  type SubgraphDefinition,
  scalarResolvers,
  secretBox,
} from "@pos-cloud/common";
import { type MessageTransport, messageCensus, messageOutbox } from "@pos-cloud/common/messages";
import { markTransactions, openSubgraphDatabase, type StorageOptions } from "@pos-cloud/common/storage";
import { auditLogSink } from "./audit-sink";
import type { Clock } from "./clock";
import { createContext, type PortalContext, type PortalDeps } from "./context";
import { PrismaClient } from "./generated/prisma/client";
import { portalJobs } from "./jobs";
import { appUpdateRepository } from "./modules/app-updates/app-update.repository";
import { appUpdateService } from "./modules/app-updates/app-update.service";
import { appUpdateResolvers } from "./modules/app-updates/resolvers";
import { areaRepository } from "./modules/areas/area.repository";
import { areaService } from "./modules/areas/area.service";
import { areaResolvers } from "./modules/areas/resolvers";
import { auditLog } from "./modules/audit/audit.repository";
import { auditService } from "./modules/audit/audit.service";
import { headSeal } from "./modules/audit/audit-chain.rules";
import { auditResolvers } from "./modules/audit/resolvers";
import { authRepository } from "./modules/auth/auth.repository";
import { authService } from "./modules/auth/auth.service";
import { mfaService } from "./modules/auth/mfa.service";
import { authResolvers } from "./modules/auth/resolvers";
import { sessionService } from "./modules/auth/session.service";
import { deviceTokenRepository } from "./modules/device-tokens/device-token.repository";
import { deviceTokenService } from "./modules/device-tokens/device-token.service";
import { deviceTokenResolvers } from "./modules/device-tokens/resolvers";
import { deviceRepository } from "./modules/devices/device.repository";
import { deviceService } from "./modules/devices/device.service";
import { deviceResolvers } from "./modules/devices/resolvers";
import { gatewaySyncRepository, syncCensus } from "./modules/gateway-sync/gateway-sync.repository";
import { gatewaySyncService } from "./modules/gateway-sync/gateway-sync.service";
import { keyResolvers } from "./modules/keys/resolvers";
import { signingKeyRepository } from "./modules/keys/signing-key.repository";
import { signingKeyService } from "./modules/keys/signing-key.service";
import { messageRepository } from "./modules/messages/message.repository";
import { messageService } from "./modules/messages/message.service";
import { messageResolvers } from "./modules/messages/resolvers";
import { provisioningRepository } from "./modules/provisioning/provisioning.repository";
import { provisioningService } from "./modules/provisioning/provisioning.service";
import { provisioningResolvers } from "./modules/provisioning/resolvers";
import { revocationResolvers } from "./modules/revocations/resolvers";
import { revocationRepository } from "./modules/revocations/revocation.repository";
import { revocationService } from "./modules/revocations/revocation.service";
import { tenantResolvers } from "./modules/tenants/resolvers";
import { tenantRepository } from "./modules/tenants/tenant.repository";
import { tenantService } from "./modules/tenants/tenant.service";
import { userResolvers } from "./modules/users/resolvers";
import { userRepository } from "./modules/users/user.repository";
import { userService } from "./modules/users/user.service";

export type { PortalContext, PortalDeps } from "./context";
export type { GatewaySyncConfig } from "./modules/gateway-sync/gateway-sync.client";

export interface PortalConfig extends StorageOptions {
  /** Seals signing keys and other secrets at rest. */
  masterKey: Buffer;
  /** Tests move time through it; everything time-dependent in the portal reads it. */
  clock?: Clock;
  /**
   * The platform's public base URL (for example https://api.example.com), known once the edge listens; device
   * client assertions may name its token endpoint as their audience.
   */
  publicUrl?: () => string | undefined;
  /**
   * Carries MFA codes by e-mail and SMS (`messageTransport`), through the portal's message outbox; without one every
   * attempt fails (and ends as an alert): a portal opened for a command sends nothing.
   */
  messages?: { transport: MessageTransport; retryDelaysMs?: number[] };
  /** The `aud` of the access tokens the portal signs (`DEFAULT_API_AUDIENCE` unless set). */
  apiAudience?: string;
}

export const portal: SubgraphDefinition<PortalDeps, PortalContext> = {
  name: "portal",
  typeDefs: loadTypeDefs(import.meta.dirname),
  resolvers: mergeResolvers(
    scalarResolvers,
    tenantResolvers,
    keyResolvers,
    userResolvers,
    authResolvers,
    areaResolvers,
    deviceResolvers,
    provisioningResolvers,
    deviceTokenResolvers,
    appUpdateResolvers,
    revocationResolvers,
    auditResolvers,
    messageResolvers,
  ),
  createContext,
};

const noTransport: MessageTransport = () =>
  Promise.reject(new Error("this process has no mail server or SMS relay configured"));

/** The token endpoint's addresses an assertion may name, besides the issuer identifier. */
function deviceTokenAudiences(publicUrl: PortalConfig["publicUrl"]) {
  return () => {
    const base = publicUrl?.()?.replace(/\/$/, "");
    const urls = base ? [base, `${base}/api/v1/auth/device/token`, `${base}/auth/device/token`] : [];
    return [DEVICE_TOKEN_ISSUER, ...urls];
  };
}

export async function openPortal(config: PortalConfig): Promise<PortalDeps> {
  const db = await openSubgraphDatabase("portal", config);
  const prisma = markTransactions(new PrismaClient({ adapter: db.adapter }));
  const clock = config.clock ?? (() => new Date());
  const box = secretBox(config.masterKey);
  const chainSeal = headSeal(config.masterKey);
  const audit = auditLog(prisma, clock, chainSeal);
  const auditSink = auditLogSink(audit, clock);
  const gatewaySync = gatewaySyncService(gatewaySyncRepository(prisma), box, { clock });
  const tenants = tenantService(tenantRepository(prisma, db, clock), box, gatewaySync.changed);
  const signingKeys = signingKeyService(signingKeyRepository(prisma), box, clock, config.apiAudience);
  // Before anything reads a secret: a database made with another master key stops the open here.
  await signingKeys.verifyMasterKey().catch(async (error: unknown) => {
    await prisma.$disconnect();
    await db.close();
    throw error;
  });
  const areas = areaService(areaRepository(prisma), tenants);
  const users = userService(userRepository(prisma, clock), areas, tenants, box, auditSink);
  const auth = authRepository(prisma);
  const messages = messageOutbox({
    db,
    transport: config.messages?.transport ?? noTransport,
    clock,
    retryDelaysMs: config.messages?.retryDelaysMs,
    seal: box,
  });
  const devices = deviceService(deviceRepository(prisma, db, clock), tenants, auditSink);
  return {
    db,
    tasks: [messageCensus, syncCensus],
    prisma,
    tenants,
    signingKeys,
    users,
    areas,
    audit,
    messages,
    auth: authService({
      users: users.authentication,
      userService: users,
      logins: auth,
      mfa: mfaService({
        users: users.authentication,
        auth: auth,
        audit,
        box,
        messages,
        clock,
      }),
      sessions: sessionService({ users: users.authentication, auth, audit, signingKeys, tenants, clock }),
      audit,
      clock,
    }),
    devices,
    gatewaySync,
    jobs: () => portalJobs({ gatewaySync, signingKeys, messages }),
    provisioning: provisioningService(provisioningRepository(prisma), devices, tenants, clock),
    deviceTokens: deviceTokenService(
      deviceTokenRepository(prisma),
      devices,
      signingKeys,
      deviceTokenAudiences(config.publicUrl),
      clock,
    ),
    appUpdates: appUpdateService(appUpdateRepository(prisma), clock),
    revocations: revocationService(revocationRepository(prisma), clock),
    auditTrail: auditService(audit, clock, chainSeal),
    outgoingMessages: messageService(messageRepository(prisma)),
    close: async () => {
      await messages.stop();
      await prisma.$disconnect();
      await db.close();
    },
  };
}
