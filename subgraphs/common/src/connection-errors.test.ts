import { describe, expect, it } from "vitest";
import { isConnectionLost } from "./connection-errors";

const coded = (code: string, message = "failed") => Object.assign(new Error(message), { code });

describe("isConnectionLost", () => {
  it("recognises a database that went away, by code, by the driver's words or through a cause", () => {
    expect(isConnectionLost(coded("ECONNREFUSED"))).toBe(true);
    expect(isConnectionLost(coded("57P01", "terminating connection due to administrator command"))).toBe(true);
    expect(isConnectionLost(coded("08006"))).toBe(true);
    expect(isConnectionLost(coded("P1017", "Server has closed the connection."))).toBe(true);
    expect(isConnectionLost(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isConnectionLost(new Error("timeout exceeded when trying to connect"))).toBe(true);
    // Prisma's failed raw query repeats the driver's words under its own code.
    expect(isConnectionLost(coded("P2010", "Raw query failed. Message: `Server has closed the connection.`"))).toBe(
      true,
    );
    expect(isConnectionLost(new Error("query failed", { cause: coded("ECONNRESET") }))).toBe(true);
  });

  it("leaves every other failure alone", () => {
    expect(isConnectionLost(coded("23505", "duplicate key value violates unique constraint"))).toBe(false);
    expect(isConnectionLost(coded("P2002", "Unique constraint failed"))).toBe(false);
    expect(isConnectionLost(new Error("boom"))).toBe(false);
    expect(isConnectionLost("Connection terminated")).toBe(false);
  });
});
