import ssh2 from "ssh2";
import { describe, expect, it } from "vitest";
import { newSshKeyPair } from "./embedded";

// About 1 in 270 of the Ed25519 keys ssh2 makes is refused by its own parser; a platform's first start then failed.
describe("the sandbox's SSH keys", () => {
  it("are each read back by ssh2, private and public halves, over a thousand of them", () => {
    const unreadable = Array.from({ length: 1000 }, newSshKeyPair).filter(
      (pair) => ssh2.utils.parseKey(pair.private) instanceof Error || ssh2.utils.parseKey(pair.public) instanceof Error,
    );
    expect(unreadable).toEqual([]);
  });
});
