import {
  AppError,
  type Caller,
  canReach,
  invalidField,
  isRole,
  mapPage,
  notFound,
  type Role,
  requireCaller,
  requireReach,
  requireService,
  requireUser,
  roles,
  type SecretBox,
  tierOf,
} from "@pos-cloud/common";
import DataLoader from "dataloader";
import { type AuditSink, platformActor } from "../../audit-sink";
import type { Prisma } from "../../generated/prisma/client";
import { type PageArgs, parsePage } from "../../validation";
import type { AreaService } from "../areas";
import { storePath, type TenantService } from "../tenants";
import { hashSecret } from "./credentials.rules";
import { generateLoginId } from "./login-id.rules";
import { MAX_PASSWORD, MIN_PASSWORD, type UserInput, userEmail, userPassword, userPhone, userPin } from "./user.inputs";
import { type UserView, view } from "./user.presenter";
import type { UserRepository } from "./user.repository";
import { type UserAccess, userAccess } from "./user-access.service";
import { userChange } from "./user-audit.rules";
import { userLockouts } from "./user-lockouts.service";
import { mfaFor, userMfa } from "./user-mfa.service";

export type UserService = ReturnType<typeof userService>;
export type UserAuthentication = UserService["authentication"];
export type { UserRow } from "./user.repository";

/** Tiers that log in with a password (and MFA); L5 and L6 use a PIN. */
export const usesPassword = (role: string) => isRole(role) && roles[role] <= roles.STORE_MANAGER;

/** An e-mail address (free to take) and a phone number a user may be given. */
async function checkContact(users: UserRepository, input: UserInput, exceptId?: string) {
  if (input.email != null) {
    if (!userEmail.safeParse(input.email).success) throw invalidField("email", "format", "not an e-mail address");
    const owner = await users.findByEmail(input.email.toLowerCase());
    if (owner && owner.id !== exceptId)
      throw new AppError("conflict", "the e-mail address is taken", { field: "email" });
  }
  if (input.phone != null && !userPhone.safeParse(input.phone).success)
    throw invalidField("phone", "format", "phone must be in E.164 form, for example +81312345678");
}

/** The hashes of the secret a tier logs in with, refusing the other kind. */
async function secretsFor(role: Role, input: UserInput, creating: boolean) {
  const data: { password_hash?: string; pin_hash?: string } = {};
  if (usesPassword(role)) {
    if (input.pin != null) throw invalidField("pin", "not_allowed", `${role} logs in with a password, not a PIN`);
    if (input.password != null || creating) {
      const sent = input.password ?? "";
      if (!userPassword.safeParse(sent).success)
        throw invalidField("password", "length", `password must be ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`);
      data.password_hash = await hashSecret(sent);
    }
  } else {
    if (input.password != null) throw invalidField("password", "not_allowed", `${role} logs in with a PIN`);
    if (input.pin != null || creating) {
      if (!userPin.safeParse(input.pin ?? "").success) throw invalidField("pin", "format", "pin must be 6 digits");
      data.pin_hash = await hashSecret(input.pin!);
    }
  }
  return data;
}

/** The tenant assignment a tier requires, completed from the one id the tier names (store, area, merchant, PSP). */
async function placeOf(areas: AreaService, tenants: TenantService, role: Role, input: UserInput) {
  const need = (field: "psp_id" | "merchant_id" | "area_id" | "store_id") => {
    const value = input[field];
    if (value === undefined || value === null)
      throw invalidField(field, "required", `${field} is required for ${role}`);
    return value;
  };
  const merchantOf = async (id: number) => {
    const merchant = await tenants.findMerchant(id);
    if (!merchant) throw invalidField("merchant_id", "exists", "merchant not found");
    return merchant;
  };
  const tier = roles[role];
  if (tier === 0) return { psp_id: null, merchant_id: null, area_id: null, store_id: null };
  if (tier === 1) {
    const psp = await tenants.findPsp(need("psp_id") as number);
    if (!psp) throw invalidField("psp_id", "exists", "psp not found");
    return { psp_id: psp.id, merchant_id: null, area_id: null, store_id: null };
  }
  if (tier === 2) {
    const merchant = await merchantOf(need("merchant_id") as number);
    return { psp_id: merchant.psp_id, merchant_id: merchant.id, area_id: null, store_id: null };
  }
  if (tier === 3) {
    const area = await areas.find(need("area_id") as string);
    if (!area) throw invalidField("area_id", "exists", "area not found");
    const merchant = await merchantOf(area.merchant_id);
    return { psp_id: merchant.psp_id, merchant_id: merchant.id, area_id: area.id, store_id: null };
  }
  const store = await tenants.findStore(need("store_id") as number);
  if (!store) throw invalidField("store_id", "exists", "store not found");
  const merchant = await merchantOf(store.merchant_id);
  return { psp_id: merchant.psp_id, merchant_id: merchant.id, area_id: null, store_id: store.id, store };
}

/** A login id no user has yet; the formats leave few per store or merchant, so a taken one is drawn again. */
async function freeLoginId(users: UserRepository, role: Role, place: { merchantId?: number; storeCode?: string }) {
  for (let attempt = 0; attempt <= 20; attempt++) {
    const loginId = generateLoginId(role, place);
    if (!(await users.findByLoginId(loginId))) return loginId;
  }
  throw new AppError("conflict", "no free login id left for this store or merchant");
}

/** Creating, changing and deactivating users. */
function userWrites(
  users: UserRepository,
  areas: AreaService,
  tenants: TenantService,
  box: SecretBox,
  audit: AuditSink,
  access: UserAccess,
) {
  /** Creates a user for `caller` (the platform itself when none: the demo tenant, a test's fixtures). */
  async function createUser(input: UserInput, caller: Caller = platformActor): Promise<UserView> {
    if (!isRole(input.role)) throw invalidField("role", "enum", `role must be one of ${Object.keys(roles).join(", ")}`);
    const role = input.role;
    if (input.login_id != null)
      throw invalidField("login_id", "server_generated", "login ids are generated by the server");
    const { store, ...place } = await placeOf(areas, tenants, role, input);
    await checkContact(users, input);
    const secrets = await secretsFor(role, input, true);
    const mfa = mfaFor(box, role, input);
    const login_id = await freeLoginId(users, role, {
      merchantId: place.merchant_id ?? undefined,
      storeCode: store?.code,
    });
    const created = await users.create(
      {
        ...(mfa.data as Prisma.UserUncheckedCreateInput),
        login_id,
        role,
        ...place,
        name: input.name ?? null,
        email: input.email?.toLowerCase() ?? null,
        phone: input.phone ?? null,
        ...secrets,
        created_by: caller.type === "user" ? (caller.id ?? null) : null,
      },
      (user) => audit.step(userChange("user.created", caller, user, { login_id, role })),
    );
    return view(created, mfa.totpSecret);
  }

  return {
    createUser,

    async create(caller: Caller, input: UserInput): Promise<UserView> {
      const tier = requireUser(caller);
      if (tier > roles.STORE_MANAGER) throw new AppError("forbidden", "your role may not create users");
      if (!isRole(input.role))
        throw invalidField("role", "enum", `role must be one of ${Object.keys(roles).join(", ")}`);
      if (roles[input.role] <= tier) throw new AppError("forbidden", "you may only create users below your own tier");
      const place = await placeOf(areas, tenants, input.role, input);
      if (!canReach(caller, await access.pathOf(place)))
        throw new AppError("forbidden", "that place is outside your reach");
      return createUser(input, caller);
    },

    async update(caller: Caller, id: string, patch: UserInput): Promise<UserView> {
      const user = await access.requireManageable(caller, id);
      if (patch.login_id != null) throw invalidField("login_id", "immutable", "a login id never changes");
      if (patch.role != null && patch.role !== user.role)
        throw invalidField("role", "immutable", "a user's role never changes");
      for (const field of ["psp_id", "merchant_id", "area_id", "store_id"] as const)
        if (patch[field] != null && patch[field] !== user[field])
          throw invalidField(field, "immutable", "create a new user to move someone to another place");
      if (patch.status != null && patch.status !== "active" && patch.status !== "inactive")
        throw invalidField("status", "enum", "status must be active or inactive (lockUser locks)");
      const role = user.role as Role;
      await checkContact(users, patch, user.id);
      const secrets = await secretsFor(role, patch, false);
      const mfa = mfaFor(box, role, patch, user);
      const data: Prisma.UserUncheckedUpdateInput = { ...secrets, ...mfa.data };
      if (patch.name !== undefined) data.name = patch.name;
      if (patch.email !== undefined) data.email = patch.email?.toLowerCase() ?? null;
      if (patch.phone !== undefined) data.phone = patch.phone;
      if (patch.status != null) data.status = patch.status;
      const changed = Object.keys(patch).filter((field) => !["password", "pin", "totp_secret"].includes(field));
      return view(
        await users.update(id, data, audit.step(userChange("user.updated", caller, user, { fields: changed }))),
        mfa.totpSecret,
      );
    },

    /** Deletion deactivates: the user can no longer log in or refresh, and the audit trail keeps its id. */
    async deactivate(caller: Caller, id: string): Promise<UserView> {
      const user = await access.requireManageable(caller, id);
      return view(
        await users.update(id, { status: "inactive" }, audit.step(userChange("user.deactivated", caller, user))),
      );
    },
  };
}

/** What a caller may read of users: those it manages, and itself. */
function userReads(users: UserRepository, tenants: TenantService, access: UserAccess) {
  return {
    async list(caller: Caller, filter: { store_id?: number; role?: string }, page: PageArgs = {}) {
      return mapPage(await users.list(await access.scopeOf(caller), filter, parsePage(page)), (user) => view(user));
    },

    async get(caller: Caller, id: string): Promise<UserView> {
      requireUser(caller);
      const user = await users.find(id).catch(() => null);
      if (!user) throw notFound("user");
      if (user.id !== caller.id && !(await access.manageable(caller, user)))
        throw new AppError("forbidden", "this user is outside your reach");
      return view(user);
    },

    /**
     * A staff code as the POS checks it (a platform service, never a client): the active user with this login id
     * whose own reach covers the store (its store's staff and manager, or a tier above over it), else null.
     */
    async storeMember(caller: Caller, storeId: number, loginId: string): Promise<UserView | null> {
      requireService(caller);
      const [user, store] = await Promise.all([users.findByLoginId(loginId), tenants.findStore(storeId)]);
      if (!user || !store || user.status !== "active" || !isRole(user.role)) return null;
      const asCaller: Caller = {
        type: "user",
        role: user.role,
        pspId: user.psp_id ?? undefined,
        merchantId: user.merchant_id ?? undefined,
        areaId: user.area_id ?? undefined,
        storeId: user.store_id ?? undefined,
        scopes: [],
      };
      return canReach(asCaller, storePath(store)) ? view(user) : null;
    },

    async staffOf(caller: Caller, storeId: number): Promise<UserView[]> {
      requireUser(caller);
      const store = await tenants.findStore(storeId);
      if (!store) throw notFound("store");
      requireReach(caller, storePath(store));
      return (await users.ofStores(await access.scopeOf(caller), [storeId])).map((user) => view(user));
    },

    /**
     * Per-request batching of `store { staff }`, one statement for every store: what `staffOf` lists (users below
     * the caller, in its reach); callers that are not users (devices) see none.
     */
    staffLoader: (caller: Caller) =>
      new DataLoader(async (storeIds: readonly number[]): Promise<UserView[][]> => {
        requireCaller(caller);
        if (tierOf(caller) === undefined) return storeIds.map(() => []);
        const rows = (await users.ofStores(await access.scopeOf(caller), storeIds)).map((user) => view(user));
        return storeIds.map((id) => rows.filter((user) => user.store_id === id));
      }),
  };
}

export function userService(
  users: UserRepository,
  areas: AreaService,
  tenants: TenantService,
  box: SecretBox,
  audit: AuditSink,
) {
  const access = userAccess(users, areas, tenants);
  return {
    manageable: access.manageable,
    ...userReads(users, tenants, access),
    ...userWrites(users, areas, tenants, box, audit, access),
    ...userLockouts(users, audit, access),
    ...userMfa(users, box, audit, access),
  };
}
