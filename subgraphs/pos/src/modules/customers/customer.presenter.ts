import type { CustomerRow } from "./customer.repository";

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
