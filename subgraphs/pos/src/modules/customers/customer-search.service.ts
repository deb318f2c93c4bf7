import { type Caller, invalidField, mapPage, type PageArgs, parseInput, parsePage } from "@pos-cloud/common";
import { givenArguments } from "../list-arguments";
import type { StoreAccess } from "../stores";
import { customerSearch } from "./customer.inputs";
import { presentCustomer } from "./customer.presenter";
import type { CustomerRepository } from "./customer.repository";

/** The way each sort reads unless `order` says otherwise: names A to Z, the latest visit and the biggest spender first. */
const defaultOrder = { name: "asc", last_visit: "desc", total_spent: "desc" } as const;

/** Phone search text: separators dropped; a national number (leading 0) also matches its E.164 form. */
function phoneAlternatives(text: string): string[] {
  const compact = text.replace(/[\s\-().]/g, "");
  if (!/^(\+\d*|\d+)$/.test(compact))
    throw invalidField("phone", "format", "phone may hold digits, '+' and separators");
  return compact.startsWith("0") ? [compact, `+81${compact.slice(1)}`] : [compact];
}

/** Finding a merchant's customers by their contact, number or name. */
export function customerSearching(customers: CustomerRepository, access: StoreAccess) {
  return {
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
  };
}
