import { type Page, readPage } from "@pos-cloud/common";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

export type CustomerRepository = ReturnType<typeof customerRepository>;
export type Tx = Prisma.TransactionClient;
export type CustomerRow = Prisma.CustomerGetPayload<object>;
export type CustomerData = Omit<Prisma.CustomerUncheckedCreateInput, "id" | "customer_number">;

/** Which unique contact a write collided with: the merchant's customer that has this phone or e-mail already. */
export type Taken = { taken: "phone" | "email" };

/** The search a list runs: its filters (all must match) and its order. */
export interface CustomerQuery {
  merchant_id: number;
  /** Each a set of alternatives of which one must contain the text, case-insensitively (`%` and `_` are literal). */
  phone?: string[];
  email?: string;
  customer_number?: string;
  name?: string;
  is_active?: boolean;
  sort: "name" | "last_visit" | "total_spent";
  order: "asc" | "desc";
}

/** `contains` as Prisma writes it into LIKE: its wildcards in the user's text are escaped to match themselves. */
const literal = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);
const containing = (text: string) => ({ contains: literal(text), mode: "insensitive" as const });

/** The unique index a P2002 names, as the contact field; undefined for another error. */
function takenField(error: unknown): Taken["taken"] | undefined {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== "P2002") return undefined;
  const described = JSON.stringify(error.meta ?? {});
  return described.includes("email") ? "email" : "phone";
}

export function customerRepository(prisma: PrismaClient) {
  /** Runs a write; a phone or e-mail another customer of the merchant has becomes `{ taken }`. */
  async function unique<T>(write: () => Promise<T>): Promise<T | Taken> {
    try {
      return await write();
    } catch (error) {
      const taken = takenField(error);
      if (taken) return { taken };
      throw error;
    }
  }

  return {
    /**
     * A new customer numbered in the same transaction: the merchant's counter row is taken by an upsert, so
     * concurrent creates wait for each other, and a refused create gives its number back. The unique indexes on
     * (merchant, phone) and (merchant, e-mail) decide between concurrent creates of one contact.
     */
    create: (data: CustomerData) =>
      unique(() =>
        prisma.$transaction(async (tx) => {
          const [counter] = await tx.$queryRaw<{ last_number: number }[]>`
            INSERT INTO customer_counters (merchant_id, last_number) VALUES (${data.merchant_id}, 1)
            ON CONFLICT (merchant_id) DO UPDATE SET last_number = customer_counters.last_number + 1
            RETURNING last_number`;
          const customer_number = `C${String(counter!.last_number).padStart(7, "0")}`;
          return tx.customer.create({ data: { ...data, customer_number } });
        }),
      ),

    find: (id: string) => prisma.customer.findUnique({ where: { id } }),

    /** A customer of this merchant, or null (another merchant's customer is not found). */
    findOfMerchant: (merchant_id: number, id: string) => prisma.customer.findFirst({ where: { id, merchant_id } }),

    /**
     * Changes a customer under a lock on its row: `decide` sees it as it is now and returns the change, or throws to
     * change nothing.
     */
    change: (id: string, decide: (row: CustomerRow) => Prisma.CustomerUncheckedUpdateInput) =>
      unique(() =>
        prisma.$transaction(async (tx) => {
          await tx.$queryRaw`SELECT id FROM customers WHERE id = ${id}::uuid FOR UPDATE`;
          const row = await tx.customer.findUniqueOrThrow({ where: { id } });
          return tx.customer.update({ where: { id }, data: decide(row) });
        }),
      ),

    search(query: CustomerQuery, page: Page) {
      const where = {
        merchant_id: query.merchant_id,
        is_active: query.is_active,
        customer_number: query.customer_number,
        email: query.email === undefined ? undefined : containing(query.email),
        AND: [
          query.phone ? { OR: query.phone.map((text) => ({ phone: containing(text) })) } : {},
          query.name ? { OR: [{ name: containing(query.name) }, { name_kana: containing(query.name) }] } : {},
        ],
      } satisfies Prisma.CustomerWhereInput;
      const first: Prisma.CustomerOrderByWithRelationInput =
        query.sort === "total_spent"
          ? { total_spent: query.order }
          : { [query.sort]: { sort: query.order, nulls: "last" } };
      return readPage(page, {
        rows: (take) => prisma.customer.findMany({ where, orderBy: [first, { id: "asc" }], take, skip: page.offset }),
        total: () => prisma.customer.count({ where }),
      });
    },

    /**
     * Adds to a customer's totals in the caller's transaction, with one statement (concurrent payments of the
     * customer's bills add up): `spent` (negative for a refund, never below 0), `visits` and the time of the visit.
     */
    addToTotals: (
      tx: Tx,
      customer: { id: string; merchant_id: number },
      change: { spent: number; visits: number; at?: Date },
    ) =>
      tx.$executeRaw`UPDATE customers SET
          total_spent = GREATEST(total_spent + ${change.spent}, 0),
          total_visits = GREATEST(total_visits + ${change.visits}, 0),
          last_visit = GREATEST(last_visit, ${change.at ?? null}::timestamptz),
          updated_at = now()
        WHERE id = ${customer.id}::uuid AND merchant_id = ${customer.merchant_id}`,
  };
}
