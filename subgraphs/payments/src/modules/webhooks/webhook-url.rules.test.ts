import { describe, expect, it } from "vitest";
import { isPublicAddress, parseWebhookUrl } from "./webhook-url.rules";

describe("webhook URLs", () => {
  it("accepts https URLs of public hosts", () => {
    expect(parseWebhookUrl("https://partner.example.com/hooks?x=1", false)).toBe(
      "https://partner.example.com/hooks?x=1",
    );
    expect(parseWebhookUrl("https://93.184.216.34/hooks", false)).toBe("https://93.184.216.34/hooks");
    expect(parseWebhookUrl("HTTPS://partner.example.com/a@b", false)).toBe("https://partner.example.com/a@b");
  });

  it.each([
    ["not a url", "url"],
    ["/relative", "url"],
    ["http://partner.example.com/hooks", "https"],
    ["ftp://partner.example.com/hooks", "https"],
    ["https://user:pass@partner.example.com/", "no_credentials"],
    ["https://localhost/hooks", "public_address"],
    ["https://127.0.0.1/hooks", "public_address"],
    ["https://10.1.2.3/hooks", "public_address"],
    ["https://172.16.0.1/hooks", "public_address"],
    ["https://192.168.1.1/hooks", "public_address"],
    ["https://169.254.169.254/latest/meta-data", "public_address"],
    ["https://100.64.0.1/", "public_address"],
    ["https://0x7f.1/", "public_address"],
    ["https://[::1]/hooks", "public_address"],
    ["https://[fd00::1]/hooks", "public_address"],
    ["https://[::ffff:127.0.0.1]/hooks", "public_address"],
    [`https://partner.example.com/${"a".repeat(2048)}`, "max_length"],
    // Forms the URL parser would repair: the URL is taken as the partner wrote it (docs/decisions/gateway.md).
    [" https://partner.example.com/hooks", "https"],
    ["https:\\\\partner.example.com/hooks", "https"],
    ["https://@partner.example.com/hooks", "no_credentials"],
  ])("refuses %s (%s)", (url, constraint) => {
    expect(() => parseWebhookUrl(url, false)).toThrow(
      expect.objectContaining({ code: "invalid_request", details: { field: "webhook_url", constraint } }),
    );
  });

  it("allows loopback and plain http when private URLs are allowed, never other schemes", () => {
    expect(parseWebhookUrl("http://127.0.0.1:8080/hooks", true)).toBe("http://127.0.0.1:8080/hooks");
    expect(() => parseWebhookUrl("file:///etc/passwd", true)).toThrow(
      expect.objectContaining({
        message: "webhook_url must be an https:// or http:// URL",
        details: { field: "webhook_url", constraint: "https" },
      }),
    );
    expect(() => parseWebhookUrl("http://partner.example.com/hooks", false)).toThrow(
      expect.objectContaining({ message: "webhook_url must be an https:// URL" }),
    );
  });

  it("judges addresses, IPv4-mapped ones by their IPv4", () => {
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("2001:4860:4860::8888")).toBe(true);
    expect(isPublicAddress("::ffff:10.0.0.1")).toBe(false);
    expect(isPublicAddress("fe80::1")).toBe(false);
    expect(isPublicAddress("not-an-ip")).toBe(false);
  });
});
