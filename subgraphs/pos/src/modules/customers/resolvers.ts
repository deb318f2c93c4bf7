import type { Resolvers } from "../../resolvers.generated";

export const customerResolvers: Resolvers = {
  Query: {
    customers: (_, args, { customers, caller }) => customers.search(caller, args),
    customer: (_, { id }, { customers, caller }) => customers.get(caller, id),
    // The purchase history is a list of orders: the orders service reads it, once the customer is checked.
    customerOrders: (_, { id, ...args }, { orders, caller }) => orders.ofCustomer(caller, id, args),
  },
  // The customer was read by who may read it; the payments service counts what its bills took.
  Customer: {
    spend: (customer, args, { payments }) => payments.customerSpend(customer, args),
  },
  Mutation: {
    createCustomer: (_, { input }, { customers, caller }) => customers.create(caller, input),
    updateCustomer: (_, { id, input }, { customers, caller }) => customers.update(caller, id, input),
  },
};
