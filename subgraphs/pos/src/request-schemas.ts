import type { z } from "zod";
import { billCombine, billCreate, billFilter, billSplit } from "./modules/bills/bill.inputs";
import { customerCreate, customerSearch, customerUpdate } from "./modules/customers/customer.inputs";
import { orderCreate, orderFilter, orderUpdate, purchaseHistoryFilter } from "./modules/orders/order.inputs";
import { cardResult, paymentCreate, paymentFilter } from "./modules/payments/payment.inputs";
import { refundCreate } from "./modules/refunds/refund.inputs";
import {
  cardDifferencesResolve,
  settlementClose,
  settlementCreate,
  settlementFilter,
} from "./modules/settlements/settlement.inputs";

/**
 * The validator each GraphQL input type of POS meets in its service, by the type's name: the API reference
 * (`rest-compat/src/openapi.ts`) describes a request body with it, so the reference says what the service checks.
 * Loaded by the edge, so this file and what it imports stay free of storage.
 */
export const requestSchemas: Record<string, z.ZodType> = {
  CreateOrderInput: orderCreate,
  UpdateOrderInput: orderUpdate,
  CreateBillInput: billCreate,
  SplitBillInput: billSplit,
  CombineBillsInput: billCombine,
  CreateCustomerInput: customerCreate,
  UpdateCustomerInput: customerUpdate,
  CreatePosPaymentInput: paymentCreate,
  CardResultInput: cardResult,
  RefundPosPaymentInput: refundCreate,
  CreateSettlementInput: settlementCreate,
  CloseSettlementInput: settlementClose,
};

/**
 * The validator of a body that is part of its input beside what the path gives (the settlement's id), by the mutation
 * field: its fields are the REST route's body fields.
 */
export const bodyFields: Record<string, z.ZodObject> = {
  resolveCardSettlementDifferences: cardDifferencesResolve,
};

/** The validator of a list's filters, by the query field that lists: its fields are the REST route's query parameters. */
export const queryFilters: Record<string, z.ZodObject> = {
  orders: orderFilter,
  bills: billFilter,
  posPayments: paymentFilter,
  customers: customerSearch,
  customerOrders: purchaseHistoryFilter,
  settlements: settlementFilter,
};
