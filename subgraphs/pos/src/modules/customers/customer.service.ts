import {
  AppError,
  type Caller,
  invalidField,
  isUuid,
  mapPage,
  notFound,
  type PageArgs,
  parseInput,
  parsePage,
} from "@pos-cloud/common";
import type { OutgoingMessage } from "@pos-cloud/common/messages";
import { givenArguments } from "../list-arguments";
import type { StoreAccess } from "../stores/store-access.service";
import {
  type Address,
  type CustomerUpdate,
  customerCreate,
  customerSearch,
  customerUpdate,
  type Preferences,
} from "./customer.inputs";
import type { CustomerRepository, CustomerRow, Taken, Tx } from "./customer.repository";

export type CustomerService = ReturnType<typeof customerService>;

/** Fields a customer keeps for life: PATCH refuses them by name. */
const immutableFields = ["merchant_id", "customer_number"] as const;

/** The way each sort reads unless `order` says otherwise: names A to Z, the latest visit and the biggest spender first. */
const defaultOrder = { name: "asc", last_visit: "desc", total_spent: "desc" } as const;

const addressColumns = {
  postal_code: "address_postal_code",
  prefecture: "address_prefecture",
  city: "address_city",
  street: "address_street",
} as const;

/** A customer as clients see it: address and preferences as objects, the date of birth as YYYY-MM-DD. */
export function presentCustomer(row: CustomerRow) {
  const address = {
    postal_code: row.address_postal_code,
    prefecture: row.address_prefecture,
    city: row.address_city,
    street: row.address_street,
  };
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    customer_number: row.customer_number,
    name: row.name,
    name_kana: row.name_kana,
    phone: row.phone,
    email: row.email,
    date_of_birth: row.date_of_birth?.toISOString().slice(0, 10) ?? null,
    gender: row.gender,
    address: Object.values(address).some((value) => value !== null) ? address : null,
    preferences: { receipt_delivery: row.receipt_delivery, language: row.language },
    total_spent: row.total_spent,
    total_visits: row.total_visits,
    is_active: row.is_active,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_visit: row.last_visit,
  };
}

const taken = (field: string) =>
  new AppError("conflict", `another customer of this merchant has this ${field}`, { field, constraint: "unique" });

const isTaken = (result: object): result is Taken => "taken" in result;

/** Columns of an address given in a request: each given field set (null clears it), the others left. */
function addressData(address: Address | null | undefined) {
  if (address === undefined) return {};
  return Object.fromEntries(
    Object.entries(addressColumns)
      .filter(([field]) => address === null || (address as Record<string, unknown>)[field] !== undefined)
      .map(([field, column]) => [column, address === null ? null : (address as Record<string, unknown>)[field]]),
  );
}

function preferenceData(preferences: Preferences | null | undefined) {
  if (preferences === undefined) return {};
  if (preferences === null) return { receipt_delivery: null, language: null };
  return {
    ...(preferences.receipt_delivery === undefined ? {} : { receipt_delivery: preferences.receipt_delivery }),
    ...(preferences.language === undefined ? {} : { language: preferences.language }),
  };
}

/** The columns a create or a patch sets, from its profile fields; absent fields are left out. */
function profileData(data: Omit<CustomerUpdate, "is_active">) {
  const { address, preferences, date_of_birth, ...plain } = data;
  return {
    ...Object.fromEntries(Object.entries(plain).filter(([, value]) => value !== undefined)),
    ...(date_of_birth === undefined
      ? {}
      : { date_of_birth: date_of_birth === null ? null : new Date(`${date_of_birth}T00:00:00Z`) }),
    ...addressData(address),
    ...preferenceData(preferences),
  };
}

/**
 * What must hold of every customer once written: a phone or an e-mail, and the contact its receipts go to. Refused
 * with the field that breaks it.
 */
function requireReachable(customer: { phone: string | null; email: string | null; receipt_delivery: string | null }) {
  if (customer.phone === null && customer.email === null)
    throw invalidField("phone", "phone_or_email", "a customer needs a phone or an email");
  if (customer.receipt_delivery === "email" && customer.email === null)
    throw invalidField("preferences.receipt_delivery", "needs_email", "receipts by email need the customer's email");
  if (customer.receipt_delivery === "sms" && customer.phone === null)
    throw invalidField("preferences.receipt_delivery", "needs_phone", "receipts by sms need the customer's phone");
}

/** Phone search text: separators dropped; a national number (leading 0) also matches its E.164 form. */
function phoneAlternatives(text: string): string[] {
  const compact = text.replace(/[\s\-().]/g, "");
  if (!/^(\+\d*|\d+)$/.test(compact))
    throw invalidField("phone", "format", "phone may hold digits, '+' and separators");
  return compact.startsWith("0") ? [compact, `+81${compact.slice(1)}`] : [compact];
}

/**
 * A merchant's customers, for Store Managers (L4) and above: profiles with a phone or e-mail unique in the merchant,
 * a customer number given once, and lifetime totals kept by the POS payments and refunds of the customer's bills
 * (`recordPayment`, `recordRefund`, in their transactions).
 */
export function customerService(customers: CustomerRepository, access: StoreAccess) {
  async function readable(caller: Caller, id: string): Promise<CustomerRow> {
    // The tier is checked before existence, so a caller below L4 learns nothing from an id.
    access.requireCustomerRole(caller);
    const customer = isUuid(id) ? await customers.find(id) : null;
    if (!customer) throw notFound("customer");
    await access.requireCustomer(caller, customer);
    return customer;
  }

  /** The totals' change of a bill's customer; bills without one, or of a customer of no merchant's, change nothing. */
  async function addToTotals(
    tx: Tx,
    bill: { merchant_id: number; customer_id: string | null },
    change: { spent: number; visits: number; at?: Date | null },
  ) {
    if (!bill.customer_id) return;
    await customers.addToTotals(
      tx,
      { id: bill.customer_id, merchant_id: bill.merchant_id },
      { ...change, at: change.at ?? undefined },
    );
  }

  return {
    /** Where an active customer who chose e-mail or SMS receipts gets them; null for print, none or no choice. */
    async receiptContact(id: string): Promise<{ channel: OutgoingMessage["channel"]; to: string } | null> {
      const customer = await customers.find(id);
      if (!customer?.is_active) return null;
      if (customer.receipt_delivery === "email" && customer.email) return { channel: "email", to: customer.email };
      if (customer.receipt_delivery === "sms" && customer.phone) return { channel: "sms", to: customer.phone };
      return null;
    },

    /** A new customer of the caller's merchant (or the one an L0 or L1 names), with the merchant's next number. */
    async create(caller: Caller, input: unknown) {
      access.requireCustomerRole(caller);
      const { merchant_id, is_active, ...data } = parseInput(customerCreate, input);
      const merchantId = await access.customerMerchant(caller, merchant_id ?? undefined);
      const columns = { phone: null, email: null, receipt_delivery: null, ...profileData(data) };
      requireReachable(columns);
      const created = await customers.create({ ...columns, merchant_id: merchantId, is_active: is_active ?? true });
      if (isTaken(created)) throw taken(created.taken);
      return presentCustomer(created);
    },

    /**
     * A merchant's customers matching every search parameter given (at least one of phone, email, customer_number
     * and name): phone, email and name (or its kana) contain the text, case-insensitively; customer_number is exact.
     */
    async search(caller: Caller, args: PageArgs & Record<string, unknown>) {
      access.requireCustomerRole(caller);
      const { limit, offset, ...filter } = args;
      const query = parseInput(customerSearch, givenArguments(filter));
      const page = parsePage({ limit, offset });
      if (!query.phone && !query.email && !query.customer_number && !query.name)
        throw invalidField(
          "phone",
          "search_parameter",
          "give at least one of phone, email, customer_number and name to search by",
        );
      const merchantId = await access.customerMerchant(caller, query.merchant_id);
      const sort = query.sort ?? "name";
      const found = await customers.search(
        {
          merchant_id: merchantId,
          phone: query.phone === undefined ? undefined : phoneAlternatives(query.phone),
          email: query.email?.toLowerCase(),
          customer_number: query.customer_number?.toUpperCase(),
          name: query.name,
          is_active: query.is_active,
          sort,
          order: query.order ?? defaultOrder[sort],
        },
        page,
      );
      return mapPage(found, presentCustomer);
    },

    get: async (caller: Caller, id: string) => presentCustomer(await readable(caller, id)),

    /** For the orders' purchase history: a customer the caller may see, as stored. */
    readable,

    /** Changes the fields given; merchant_id and customer_number never change (400 naming the field). */
    async update(caller: Caller, id: string, input: unknown) {
      access.requireCustomerRole(caller);
      for (const field of immutableFields)
        if (input !== null && typeof input === "object" && Object.hasOwn(input, field))
          throw invalidField(field, "immutable", `${field} cannot change`);
      const { is_active, ...data } = parseInput(customerUpdate, input);
      await readable(caller, id);
      const changed = await customers.change(id, (row) => {
        const columns = { ...profileData(data), ...(is_active === undefined ? {} : { is_active }) };
        requireReachable({ ...row, ...columns });
        return columns;
      });
      if (isTaken(changed)) throw taken(changed.taken);
      return presentCustomer(changed);
    },

    /**
     * For orders: a customer an order of this merchant may name (an active customer of the same merchant). Anything
     * else is 400 on `field`, so an id of another merchant's customer tells nothing about it.
     */
    async requireAttachable(merchantId: number, customerId: string, field = "customer_id") {
      const customer = isUuid(customerId) ? await customers.findOfMerchant(merchantId, customerId) : null;
      if (!customer) throw invalidField(field, "customer_of_merchant", "not a customer of this merchant");
      if (!customer.is_active) throw invalidField(field, "active_customer", "the customer is deactivated");
    },

    /**
     * For POS payments, in the transaction that completes a payment and applies it to `bill` (as it is after): the
     * bill's customer spent the amount, and a bill this payment paid in full is one visit, at the time it was paid.
     */
    recordPayment: (
      tx: Tx,
      bill: { merchant_id: number; customer_id: string | null; status: string; paid_at: Date | null },
      amount: number,
    ) =>
      bill.status === "paid"
        ? addToTotals(tx, bill, { spent: amount, visits: 1, at: bill.paid_at })
        : addToTotals(tx, bill, { spent: amount, visits: 0 }),

    /**
     * For POS refunds, in the transaction that gives money back from `bill` (as it is after): the amount comes off
     * what the customer spent; a bill the refund cancelled (everything given back) is no longer a visit.
     */
    recordRefund: (tx: Tx, bill: { merchant_id: number; customer_id: string | null; status: string }, amount: number) =>
      addToTotals(tx, bill, { spent: -amount, visits: bill.status === "cancelled" ? -1 : 0 }),
  };
}
