import { AppError, type Caller, invalidField, isUuid, notFound, parseInput } from "@pos-cloud/common";
import type { OutgoingMessage } from "@pos-cloud/common/messages";
import type { StoreAccess } from "../stores";
import { type Address, type CustomerUpdate, customerCreate, customerUpdate, type Preferences } from "./customer.inputs";
import { presentCustomer } from "./customer.presenter";
import type { CustomerRepository, CustomerRow, Taken } from "./customer.repository";
import { customerSearching } from "./customer-search.service";
import { customerTotals } from "./customer-totals.service";

export type CustomerService = ReturnType<typeof customerService>;

/** Fields a customer keeps for life: PATCH refuses them by name. */
const immutableFields = ["merchant_id", "customer_number"] as const;

const addressColumns = {
  postal_code: "address_postal_code",
  prefecture: "address_prefecture",
  city: "address_city",
  street: "address_street",
} as const;

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

/**
 * A merchant's customers, for Store Managers (L4) and above: profiles with a phone or e-mail unique in the merchant,
 * a customer number given once, and lifetime totals kept by the POS payments and refunds of the customer's bills
 * (`customerTotals`, in their transactions); found by `customerSearching`.
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

    ...customerSearching(customers, access),
    ...customerTotals(customers),
  };
}
