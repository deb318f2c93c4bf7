import type { SqlRunner } from "@pos-cloud/common/storage";
import { Prisma } from "./generated/prisma/client";

/*
 * Helpers of every module's repository: they own no table, so a repository uses them without reaching another
 * module's storage.
 */

/** A unique code taken at its level becomes a 409 naming the field; other errors pass through. */
export async function uniqueCode<T>(write: Promise<T>): Promise<T | "taken"> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return "taken";
    throw error;
  }
}

/** Runs a `Prisma.sql` statement on the driver. */
export const run = <Row>(db: SqlRunner, statement: Prisma.Sql) => db.query<Row>(statement.text, statement.values);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether a string can name a row with a UUID key; PostgreSQL refuses any other in a UUID column. */
export const isUuid = (id: string) => UUID.test(id);
