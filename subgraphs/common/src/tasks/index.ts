export { raw, sqltag as sql } from "@prisma/client/runtime/client";
export * from "./task-policies";
export * from "./task-queue";
