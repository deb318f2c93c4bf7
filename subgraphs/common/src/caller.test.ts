import { describe, expect, it } from "vitest";
import { callerFromHeaders, callerHeaders } from "./caller";
import { AppError } from "./errors";

const token = "internal-token-for-tests";

describe("caller headers", () => {
  it("carry a device caller across a hop unchanged", () => {
    const device = {
      type: "device" as const,
      id: "6f1c2b9e-0000-4000-8000-000000000001",
      merchantId: 7,
      storeId: 42,
      scopes: ["order:create", "payment:create"],
    };
    const read = callerFromHeaders(callerHeaders(device, token), token);
    expect(read).toMatchObject(device);
  });

  it("carry a restricted key's permissions and stores across a hop, and none for an unrestricted key", () => {
    const restricted = {
      type: "partner" as const,
      id: "7",
      scopes: ["payment_intents:read", "refunds:write"],
      storeIds: [100, 101],
      apiKeyId: "key_1",
    };
    expect(callerFromHeaders(callerHeaders(restricted, token), token)).toMatchObject(restricted);
    const unrestricted = callerFromHeaders(callerHeaders({ type: "partner", id: "7", scopes: [] }, token), token);
    expect(unrestricted).toMatchObject({ scopes: [], storeIds: undefined });
  });

  it("are refused without the internal credential, so a client cannot forge them", () => {
    const forged = { ...callerHeaders({ type: "user", role: "SYSTEM_OP", scopes: [] }, token) };
    delete forged["x-internal-token"];
    expect(() => callerFromHeaders(forged, token)).toThrow(AppError);
    expect(() => callerFromHeaders({ ...forged, "x-internal-token": "guess" }, token)).toThrow(
      /only answers the gateway/,
    );
  });

  it("read an unknown caller type as anonymous", () => {
    const headers = { ...callerHeaders({ type: "user", scopes: [] }, token), "x-caller-type": "root" };
    expect(callerFromHeaders(headers, token).type).toBe("anonymous");
  });
});

describe("caller context headers", () => {
  it("carry the client's address and user agent, for the audit log", () => {
    const user = { type: "user" as const, id: "u", role: "STAFF", scopes: [], ip: "203.0.113.9", userAgent: "POS/1.0" };
    expect(callerFromHeaders(callerHeaders(user, token), token)).toMatchObject({
      ip: "203.0.113.9",
      userAgent: "POS/1.0",
    });
  });

  it("drop characters of a user agent that would not survive an HTTP hop", () => {
    const caller = { type: "anonymous" as const, scopes: [], userAgent: "Tablet\u00e9\n/2" };
    expect(callerFromHeaders(callerHeaders(caller, token), token).userAgent).toBe("Tablet/2");
  });
});
