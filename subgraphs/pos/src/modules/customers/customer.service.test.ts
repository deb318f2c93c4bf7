import { randomInt, randomUUID } from "node:crypto";
import type { Caller } from "@pos-cloud/common";
import { seedEmbeddedStorage } from "@pos-cloud/test-support/databases";
import { onPostgres, temporaryDirectory, testStorage } from "@pos-cloud/test-support/environment";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPos, type PosDeps } from "../../index";

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: { code?: string; details?: { field?: string; constraint?: string } }) =>
      [error.code ?? String(error), error.details?.field, error.details?.constraint].filter(Boolean).join(" "),
  );

/** A merchant of its own PSP, with a caller per tier (the store ids are the merchant's only store). */
function tenant() {
  const pspId = randomInt(1, 2_000_000_000);
  const merchantId = randomInt(1, 2_000_000_000);
  const storeId = randomInt(1, 2_000_000_000);
  const at = { pspId, merchantId, storeId };
  const user = (role: string, place: object): Caller => ({
    type: "user",
    id: randomUUID(),
    role,
    scopes: [],
    ...place,
  });
  return {
    pspId,
    merchantId,
    storeId,
    L0: user("SYSTEM_OP", {}),
    L1: user("PSP_ADMIN", { pspId }),
    L2: user("MERCHANT_ADMIN", { pspId, merchantId }),
    L3: user("AREA_MANAGER", { pspId, merchantId, areaId: randomUUID() }),
    L4: user("STORE_MANAGER", at),
    L5: user("STAFF_LEADER", at),
    L6: user("STAFF", at),
    device: {
      type: "device",
      id: randomUUID(),
      merchantId,
      storeId,
      scopes: ["order:create", "bill:create", "payment:create"],
    } as Caller,
  };
}

describe("customer service", () => {
  let pos: PosDeps;
  let now = new Date("2026-11-20T03:00:00Z");
  const dir = temporaryDirectory();
  const home = tenant();
  const away = tenant();
  const merchantsOfPsp = new Map([
    [home.pspId, home.merchantId],
    [away.pspId, away.merchantId],
  ]);
  let phoneSerial = 1000;
  const nextPhone = () => `+8190${String(++phoneSerial).padStart(8, "0")}`;

  beforeAll(async () => {
    if (!onPostgres) await seedEmbeddedStorage(dir.path);
    pos = await openPos({
      ...testStorage("pos"),
      dataDir: onPostgres ? undefined : dir.path,
      clock: () => now,
      // The portal answers `merchant(id)` as it would: a PSP admin reaches its PSP's merchant, an operator any.
      portal: async (query, variables, caller) => {
        if (!query.includes("merchant(")) return { errors: [{ message: "unexpected", extensions: {} }] };
        const id = variables.id as number;
        const known = [...merchantsOfPsp.values()].includes(id);
        const reaches = caller.role === "SYSTEM_OP" || merchantsOfPsp.get(caller.pspId ?? -1) === id;
        if (!known) return { errors: [{ message: "merchant not found", extensions: { code: "not_found" } }] };
        if (!reaches) return { errors: [{ message: "outside", extensions: { code: "forbidden" } }] };
        return { data: { merchant: { id } } };
      },
    });
  });
  afterAll(async () => {
    await pos?.close();
    dir.remove();
  });

  it("registers a customer with a generated number, its phone in E.164 and its email in lowercase", async () => {
    const created = await pos.customers.create(home.L4, {
      name: "Sato Hanako",
      name_kana: "サトウ ハナコ",
      phone: "090-1111-2222",
      email: "Hanako.Sato@Example.JP",
      date_of_birth: "1990-04-01",
      gender: "female",
      address: { postal_code: "150-0001", city: "Shibuya" },
      preferences: { receipt_delivery: "email", language: "ja" },
    });
    expect(created).toMatchObject({
      merchant_id: home.merchantId,
      phone: "+819011112222",
      email: "hanako.sato@example.jp",
      date_of_birth: "1990-04-01",
      address: { postal_code: "150-0001", prefecture: null, city: "Shibuya", street: null },
      preferences: { receipt_delivery: "email", language: "ja" },
      total_spent: 0,
      total_visits: 0,
      last_visit: null,
      is_active: true,
    });
    expect(created.customer_number).toMatch(/^C\d{7}$/);
    const second = await pos.customers.create(home.L2, { email: "second@example.jp" });
    expect(Number(second.customer_number.slice(1))).toBe(Number(created.customer_number.slice(1)) + 1);
    expect(second.address).toBeNull();
  });

  it("refuses bad profiles with the field at fault, and stores nothing", async () => {
    const before = await pos.prisma.customer.count({ where: { merchant_id: home.merchantId } });
    const cases: [object, string][] = [
      [{ name: "No contact" }, "invalid_request phone phone_or_email"],
      [{ phone: "12345" }, "invalid_request phone invalid_format"],
      [{ email: "not-an-email" }, "invalid_request email invalid_format"],
      [{ email: "a@b.jp", date_of_birth: "1990-02-30" }, "invalid_request date_of_birth custom"],
      [{ email: "a@b.jp", date_of_birth: "2999-01-01" }, "invalid_request date_of_birth custom"],
      [{ email: "a@b.jp", gender: "robot" }, "invalid_request gender invalid_value"],
      [{ email: "a@b.jp", name: "x".repeat(101) }, "invalid_request name too_big"],
      [
        { phone: nextPhone(), preferences: { receipt_delivery: "email" } },
        "invalid_request preferences.receipt_delivery needs_email",
      ],
      [{ email: "a@b.jp", card_number: "4242" }, "invalid_request card_number unrecognized_keys"],
    ];
    for (const [input, expected] of cases) expect(await code(pos.customers.create(home.L4, input))).toBe(expected);
    expect(await pos.prisma.customer.count({ where: { merchant_id: home.merchantId } })).toBe(before);
  });

  it("keeps phone and email unique within the merchant, whatever their spelling, and across merchants apart", async () => {
    const phone = nextPhone();
    await pos.customers.create(home.L4, { phone, email: "unique@example.jp" });
    const national = `0${phone.slice(3, 5)}-${phone.slice(5, 9)}-${phone.slice(9)}`;
    expect(await code(pos.customers.create(home.L4, { phone: national }))).toBe("conflict phone unique");
    expect(await code(pos.customers.create(home.L4, { email: "UNIQUE@example.jp" }))).toBe("conflict email unique");
    expect(await code(pos.customers.create(away.L4, { phone, email: "unique@example.jp" }))).toBe("ok");
  });

  it("lets only one of concurrent creates of one contact succeed (the database's unique index decides)", async () => {
    const email = `race-${randomUUID()}@example.jp`;
    const results = await Promise.all(Array.from({ length: 4 }, () => code(pos.customers.create(home.L4, { email }))));
    expect(results.filter((result) => result === "ok")).toHaveLength(1);
    expect(results.filter((result) => result === "conflict email unique")).toHaveLength(3);
    expect(await pos.prisma.customer.count({ where: { merchant_id: home.merchantId, email } })).toBe(1);
  });

  it("serves Store Managers and above: below L4 and devices are refused, other merchants' customers not found", async () => {
    const own = await pos.customers.create(home.L4, { phone: nextPhone() });
    for (const caller of [home.L5, home.L6, home.device]) {
      expect(await code(pos.customers.create(caller, { phone: nextPhone() }))).toBe("forbidden");
      expect(await code(pos.customers.get(caller, own.id))).toBe("forbidden");
      expect(await code(pos.customers.get(caller, randomUUID()))).toBe("forbidden");
      expect(await code(pos.customers.search(caller, { name: "a" }))).toBe("forbidden");
      // The role is checked before the input: bad input from them is still 403.
      expect(await code(pos.customers.search(caller, {}))).toBe("forbidden");
      expect(await code(pos.customers.create(caller, { name: "no contact" }))).toBe("forbidden");
      expect(await code(pos.customers.update(caller, own.id, { merchant_id: 1 }))).toBe("forbidden");
      expect(await code(pos.customers.update(caller, own.id, { name: "x" }))).toBe("forbidden");
    }
    for (const caller of [home.L0, home.L1, home.L2, home.L3, home.L4])
      expect(await code(pos.customers.get(caller, own.id))).toBe("ok");
    for (const caller of [away.L1, away.L2, away.L3, away.L4]) {
      expect(await code(pos.customers.get(caller, own.id))).toBe("not_found");
      expect(await code(pos.customers.update(caller, own.id, { name: "x" }))).toBe("not_found");
    }
    expect(await code(pos.customers.get(home.L4, "not-a-uuid"))).toBe("not_found");
    // Operators and PSP admins name the merchant; a PSP admin only one of its PSP.
    expect(await code(pos.customers.create(home.L0, { phone: nextPhone() }))).toBe(
      "invalid_request merchant_id required",
    );
    expect(await code(pos.customers.create(home.L1, { merchant_id: away.merchantId, phone: nextPhone() }))).toBe(
      "not_found",
    );
    expect(await code(pos.customers.create(home.L1, { merchant_id: home.merchantId, phone: nextPhone() }))).toBe("ok");
    expect(await code(pos.customers.create(home.L4, { merchant_id: away.merchantId, phone: nextPhone() }))).toBe(
      "not_found",
    );
  });

  it("changes only the fields given; merchant_id and customer_number never change", async () => {
    const customer = await pos.customers.create(home.L4, {
      phone: nextPhone(),
      email: `patch-${randomUUID()}@example.jp`,
      address: { postal_code: "100-0001", city: "Chiyoda" },
    });
    expect(await code(pos.customers.update(home.L4, customer.id, { merchant_id: away.merchantId }))).toBe(
      "invalid_request merchant_id immutable",
    );
    expect(await code(pos.customers.update(home.L4, customer.id, { customer_number: "C9999999" }))).toBe(
      "invalid_request customer_number immutable",
    );
    expect(await code(pos.customers.update(home.L4, customer.id, { phone: null, email: null }))).toBe(
      "invalid_request phone phone_or_email",
    );
    expect(await code(pos.customers.update(home.L4, customer.id, {}))).toBe("invalid_request body custom");
    const other = await pos.customers.create(home.L4, { phone: nextPhone() });
    expect(await code(pos.customers.update(home.L4, other.id, { phone: customer.phone }))).toBe(
      "conflict phone unique",
    );

    const changed = await pos.customers.update(home.L4, customer.id, {
      name: "Suzuki Ichiro",
      email: null,
      address: { street: "1-1 Marunouchi" },
      preferences: { language: "en" },
    });
    expect(changed).toMatchObject({
      id: customer.id,
      merchant_id: home.merchantId,
      customer_number: customer.customer_number,
      name: "Suzuki Ichiro",
      phone: customer.phone,
      email: null,
      address: { postal_code: "100-0001", city: "Chiyoda", street: "1-1 Marunouchi", prefecture: null },
      preferences: { receipt_delivery: null, language: "en" },
    });
    expect((await pos.customers.update(home.L4, customer.id, { address: null })).address).toBeNull();
  });

  describe("search", () => {
    const merchant = tenant();
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const people = [
        {
          key: "tanaka",
          name: "Tanaka Taro",
          name_kana: "タナカ タロウ",
          phone: "+819012340001",
          email: "taro@tanaka.jp",
        },
        { key: "tanabe", name: "Tanabe Jiro", phone: "+819012340002", email: "Jiro_Tanabe@example.jp" },
        { key: "yamada", name: "Yamada Hana", phone: "+14155550100", email: "hana.yamada@example.com" },
        { key: "nameless", phone: "+819099990000" },
      ];
      for (const { key, ...person } of people) ids[key] = (await pos.customers.create(merchant.L4, person)).id;
      const spend = async (key: string, spent: number, at: string) =>
        pos.prisma.customer.update({ where: { id: ids[key] }, data: { total_spent: spent, last_visit: new Date(at) } });
      await spend("tanaka", 5000, "2026-11-01T10:00:00Z");
      await spend("tanabe", 12000, "2026-10-01T10:00:00Z");
      await spend("yamada", 800, "2026-11-10T10:00:00Z");
    });

    const found = async (args: Record<string, unknown>) =>
      (await pos.customers.search(merchant.L4, args)).nodes.map((customer) => customer.id);

    it("needs at least one search parameter", async () => {
      expect(await code(pos.customers.search(merchant.L4, {}))).toBe("invalid_request phone search_parameter");
      expect(await code(pos.customers.search(merchant.L4, { is_active: true, sort: "name" }))).toBe(
        "invalid_request phone search_parameter",
      );
      expect(await code(pos.customers.search(merchant.L4, { sort: "age", name: "a" }))).toBe(
        "invalid_request sort invalid_value",
      );
    });

    it("matches phone, email and name partially and case-insensitively, customer_number exactly", async () => {
      expect(await found({ phone: "1234" })).toEqual([ids.tanabe, ids.tanaka]);
      expect(await found({ phone: "090-1234-0001" })).toEqual([ids.tanaka]);
      expect(await found({ email: "TANAKA.JP" })).toEqual([ids.tanaka]);
      expect(await found({ email: "jiro_" })).toEqual([ids.tanabe]);
      // LIKE wildcards in the text match themselves only.
      expect(await found({ email: "%" })).toEqual([]);
      expect(await found({ email: "r_@" })).toEqual([]);
      expect(await found({ name: "tana" })).toEqual([ids.tanabe, ids.tanaka]);
      expect(await found({ name: "タナカ" })).toEqual([ids.tanaka]);
      expect(await found({ name: "tana", phone: "0001" })).toEqual([ids.tanaka]);
      const number = (await pos.customers.get(merchant.L4, ids.yamada!)).customer_number;
      expect(await found({ customer_number: number })).toEqual([ids.yamada]);
      expect(await found({ customer_number: number.slice(0, -1) })).toEqual([]);
      // A manager searches its own merchant only.
      expect((await pos.customers.search(home.L4, { phone: "11112222" })).nodes).toHaveLength(1);
      expect(await found({ phone: "11112222" })).toEqual([]);
    });

    it("sorts by name, last_visit and total_spent, either way, and pages with a total", async () => {
      const everyone = { phone: "+" };
      expect(await found(everyone)).toEqual([ids.tanabe, ids.tanaka, ids.yamada, ids.nameless]);
      expect(await found({ ...everyone, sort: "name", order: "desc" })).toEqual([
        ids.yamada,
        ids.tanaka,
        ids.tanabe,
        ids.nameless,
      ]);
      expect(await found({ ...everyone, sort: "total_spent" })).toEqual([
        ids.tanabe,
        ids.tanaka,
        ids.yamada,
        ids.nameless,
      ]);
      expect(await found({ ...everyone, sort: "total_spent", order: "asc" })).toEqual([
        ids.nameless,
        ids.yamada,
        ids.tanaka,
        ids.tanabe,
      ]);
      expect(await found({ ...everyone, sort: "last_visit" })).toEqual([
        ids.yamada,
        ids.tanaka,
        ids.tanabe,
        ids.nameless,
      ]);
      const page = await pos.customers.search(merchant.L4, { ...everyone, sort: "total_spent", limit: 2, offset: 1 });
      expect(page.nodes.map((customer) => customer.id)).toEqual([ids.tanaka, ids.yamada]);
      expect(page).toMatchObject({ total_count: 4, page_info: { has_next_page: true } });
    });
  });

  describe("totals and purchase history", () => {
    const merchant = tenant();
    let customer: { id: string };

    const totals = async () => {
      const row = await pos.prisma.customer.findUniqueOrThrow({ where: { id: customer.id } });
      return { spent: row.total_spent, visits: row.total_visits, last: row.last_visit?.toISOString() ?? null };
    };
    const bill = (status: string, paid_at: Date | null = null, customer_id = customer.id) => ({
      merchant_id: merchant.merchantId,
      customer_id,
      status,
      paid_at,
    });

    beforeAll(async () => {
      customer = await pos.customers.create(merchant.L4, { phone: "+819055550000", name: "Regular" });
    });

    it("adds completed payments, counts one visit per bill paid in full, and takes refunds off", async () => {
      const record = (work: Parameters<PosDeps["prisma"]["$transaction"]>[0]) => pos.prisma.$transaction(work);
      await record((tx) => pos.customers.recordPayment(tx, bill("partial"), 1000));
      expect(await totals()).toEqual({ spent: 1000, visits: 0, last: null });
      await record((tx) => pos.customers.recordPayment(tx, bill("paid", new Date("2026-11-20T03:00:00Z")), 1640));
      expect(await totals()).toEqual({ spent: 2640, visits: 1, last: "2026-11-20T03:00:00.000Z" });
      await record((tx) => pos.customers.recordRefund(tx, bill("paid"), 640));
      expect(await totals()).toEqual({ spent: 2000, visits: 1, last: "2026-11-20T03:00:00.000Z" });
      // A refund that gives the rest back cancels the bill: it is no longer a visit.
      await record((tx) => pos.customers.recordRefund(tx, bill("cancelled"), 2000));
      expect(await totals()).toEqual({ spent: 0, visits: 0, last: "2026-11-20T03:00:00.000Z" });
      // A bill naming the customer under another merchant, or no customer, changes nothing.
      await record((tx) =>
        pos.customers.recordPayment(tx, { ...bill("paid", new Date()), merchant_id: away.merchantId }, 500),
      );
      await record((tx) => pos.customers.recordPayment(tx, bill("paid", new Date(), null as never), 500));
      expect(await totals()).toEqual({ spent: 0, visits: 0, last: "2026-11-20T03:00:00.000Z" });
    });

    it("lets an order name an active customer of its merchant only", async () => {
      const order = (customer_id: string, caller = merchant.device) =>
        pos.orders.create(caller, {
          order_type: "takeaway",
          customer_id,
          items: [{ sequence: 1, item_name: "Coffee", quantity: 1, unit_price: 450 }],
        });
      expect(await code(order(customer.id))).toBe("ok");
      expect(await code(order(customer.id, away.device))).toBe("invalid_request customer_id customer_of_merchant");
      expect(await code(order(randomUUID()))).toBe("invalid_request customer_id customer_of_merchant");
      const gone = await pos.customers.create(merchant.L4, { phone: "+819055550001" });
      await pos.customers.update(merchant.L4, gone.id, { is_active: false });
      expect(await code(order(gone.id))).toBe("invalid_request customer_id active_customer");
      const open = await pos.orders.create(merchant.device, {
        order_type: "takeaway",
        items: [{ sequence: 1, item_name: "Tea", quantity: 1, unit_price: 400 }],
      });
      expect(await code(pos.orders.update(away.device, open.id, { customer_id: customer.id }))).toBe("not_found");
      const foreign = await pos.customers.create(away.L4, { phone: "+819055550002" });
      expect(await code(pos.orders.update(merchant.device, open.id, { customer_id: foreign.id }))).toBe(
        "invalid_request customer_id customer_of_merchant",
      );
      expect((await pos.orders.update(merchant.device, open.id, { customer_id: customer.id })).customer_id).toBe(
        customer.id,
      );
    });

    it("lists the customer's orders newest first within business days (Asia/Tokyo), both included", async () => {
      const fresh = await pos.customers.create(merchant.L4, { phone: "+819055550003" });
      const taken: Record<string, string> = {};
      // 23:30 on the 1st in Tokyo is still the 1st there (14:30 UTC); 00:30 on the 3rd is the 2nd's evening in UTC.
      for (const at of ["2026-11-01T14:30:00Z", "2026-11-02T03:00:00Z", "2026-11-02T15:30:00Z"]) {
        now = new Date(at);
        taken[at] = (
          await pos.orders.create(merchant.device, {
            order_type: "takeaway",
            customer_id: fresh.id,
            items: [{ sequence: 1, item_name: "Bento", quantity: 1, unit_price: 900 }],
          })
        ).id;
      }
      const history = async (args: Record<string, unknown>, caller = merchant.L4) =>
        (await pos.orders.ofCustomer(caller, fresh.id, args)).nodes.map((order) => order.id);
      expect(await history({})).toEqual([
        taken["2026-11-02T15:30:00Z"],
        taken["2026-11-02T03:00:00Z"],
        taken["2026-11-01T14:30:00Z"],
      ]);
      expect(await history({ start_date: "2026-11-01", end_date: "2026-11-02" })).toEqual([
        taken["2026-11-02T03:00:00Z"],
        taken["2026-11-01T14:30:00Z"],
      ]);
      expect(await history({ start_date: "2026-11-03" })).toEqual([taken["2026-11-02T15:30:00Z"]]);
      expect(await history({ end_date: "2026-11-01", limit: 5 })).toEqual([taken["2026-11-01T14:30:00Z"]]);
      expect(await code(history({ start_date: "2026-11-03", end_date: "2026-11-02" }))).toBe(
        "invalid_request end_date custom",
      );
      expect(await code(history({ start_date: "2026/11/01" }))).toBe("invalid_request start_date invalid_format");
      expect(await code(history({}, away.L2))).toBe("not_found");
      expect(await code(history({}, merchant.L6))).toBe("forbidden");
    });
  });
});
