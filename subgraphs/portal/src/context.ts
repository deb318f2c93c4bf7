import type { Caller } from "@pos-cloud/common";
import type { Job } from "@pos-cloud/common/jobs";
import type { MessageOutbox } from "@pos-cloud/common/messages";
import type { Database } from "@pos-cloud/common/storage";
import type { TaskCensus } from "@pos-cloud/common/tasks";
import type { PrismaClient } from "./generated/prisma/client";
import type { AppUpdateService } from "./modules/app-updates/app-update.service";
import type { AreaService } from "./modules/areas/area.service";
import type { AuditLog } from "./modules/audit/audit.repository";
import type { AuditService } from "./modules/audit/audit.service";
import type { AuthService } from "./modules/auth/auth.service";
import type { DeviceTokenService } from "./modules/device-tokens/device-token.service";
import type { DeviceService } from "./modules/devices/device.service";
import type { GatewaySyncService } from "./modules/gateway-sync/gateway-sync.service";
import type { SigningKeyService } from "./modules/keys/signing-key.service";
import type { MessageService } from "./modules/messages/message.service";
import type { ProvisioningService } from "./modules/provisioning/provisioning.service";
import type { RevocationService } from "./modules/revocations/revocation.service";
import type { TenantLoaders, TenantReferences, TenantService } from "./modules/tenants/tenant.service";
import type { UserService } from "./modules/users/user.service";

/** The services, built once in `openPortal`. */
export interface PortalServices {
  tenants: TenantService;
  signingKeys: SigningKeyService;
  users: UserService;
  areas: AreaService;
  auth: AuthService;
  devices: DeviceService;
  provisioning: ProvisioningService;
  deviceTokens: DeviceTokenService;
  appUpdates: AppUpdateService;
  revocations: RevocationService;
  auditTrail: AuditService;
  /** What people may learn of the portal's e-mail and SMS (`messages` is the outbox that sends them). */
  outgoingMessages: MessageService;
}

/** What the portal holds for its whole life: storage and the services built on it. */
export interface PortalDeps extends PortalServices {
  audit: AuditLog;
  /** MFA codes by e-mail and SMS, queued; the platform runs `retryDueMessages` periodically. */
  messages: MessageOutbox;
  /** Pushes tenant configuration to the payment gateway; its job is among `jobs`. */
  gatewaySync: GatewaySyncService;
  /** The subgraph's periodic work (jobs.ts), for the job registry of the platform or a worker. */
  jobs(): Job[];
  db: Database;
  /** The task kinds waiting in its database, for the task gauges (`watchTasks`). */
  tasks: TaskCensus[];
  prisma: PrismaClient;
  close(): Promise<void>;
}

/**
 * What one request sees: who calls, the services, and the request's batch loaders for nested lists, parent links
 * and entity references (one statement per type per request).
 */
export interface PortalContext extends PortalServices {
  caller: Caller;
  loaders: {
    tenants: TenantLoaders;
    devices: ReturnType<DeviceService["loader"]>;
    areas: ReturnType<AreaService["loader"]>;
    staff: ReturnType<UserService["staffLoader"]>;
    installed: ReturnType<AppUpdateService["installedLoader"]>;
  };
  references: TenantReferences & { device: ReturnType<DeviceService["references"]> };
}

export function createContext(deps: PortalDeps, caller: Caller): PortalContext {
  const {
    tenants,
    signingKeys,
    users,
    areas,
    auth,
    devices,
    provisioning,
    deviceTokens,
    appUpdates,
    revocations,
    auditTrail,
    outgoingMessages,
  } = deps;
  return {
    caller,
    tenants,
    signingKeys,
    users,
    areas,
    auth,
    devices,
    provisioning,
    deviceTokens,
    appUpdates,
    revocations,
    auditTrail,
    outgoingMessages,
    loaders: {
      tenants: tenants.loaders(caller),
      devices: devices.loader(caller),
      areas: areas.loader(caller),
      staff: users.staffLoader(caller),
      installed: appUpdates.installedLoader(),
    },
    references: { ...tenants.references(caller), device: devices.references(caller) },
  };
}
