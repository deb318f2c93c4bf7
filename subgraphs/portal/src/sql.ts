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
