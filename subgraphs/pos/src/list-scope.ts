/** What a list may show a caller: one store, one merchant's stores, or every store (a system operator). */
export type ListScope = { store_id?: number; merchant_id?: number };
