import { describe, expect, it } from "vitest";
import { clientOf } from "./connection-limits";

describe("the client a connection counts against", () => {
  it("is the IPv4 address, also when Node shows it IPv4-mapped", () => {
    expect(clientOf("203.0.113.7")).toBe("203.0.113.7");
    expect(clientOf("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("is the /64 of an IPv6 address, however it is written", () => {
    const client = "2001:db8:0:1::/64";
    expect(clientOf("2001:db8:0:1::1")).toBe(client);
    expect(clientOf("2001:0db8:0000:0001:abcd:ef01:2345:6789")).toBe(client);
    expect(clientOf("2001:db8::1:0:0:0:5")).toBe(client);
    expect(clientOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientOf("2001:db8:0:2::1")).not.toBe(client);
  });
});
