import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkMasterKey, MasterKeyMismatchError, secretBox } from "./secrets";

describe("checkMasterKey", () => {
  const box = secretBox(randomBytes(32));
  const sealed = box.seal("a secret");

  it("passes with the key that sealed the secret, and on a database without secrets", () => {
    expect(() => checkMasterKey(box, "payments", sealed)).not.toThrow();
    expect(() => checkMasterKey(secretBox(randomBytes(32)), "payments", null)).not.toThrow();
  });

  it("names the database and what to do when another key sealed it", () => {
    const check = () => checkMasterKey(secretBox(randomBytes(32)), "payments", sealed);
    expect(check).toThrow(MasterKeyMismatchError);
    expect(check).toThrow(
      /^the databases were made with another master key \(the payments database's secrets .*give that key with MASTER_KEY .*DATABASE_PREFIX/,
    );
  });
});
