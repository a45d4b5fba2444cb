import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";
import { AddressRanges, allowListRanges, parseRange } from "../src/ip-ranges.ts";

// Addresses and ranges of hooks' allowedIps and TRUSTED_PROXIES (src/ip-ranges.ts), as a table.

describe("address ranges", () => {
  const cases: Array<[string[], string, boolean]> = [
    [["52.89.214.238"], "52.89.214.238", true],
    [["52.89.214.238"], "52.89.214.239", false],
    [["10.0.0.0/8"], "10.255.255.255", true],
    [["10.0.0.0/8"], "11.0.0.0", false],
    [["203.0.113.0/28"], "203.0.113.15", true],
    [["203.0.113.0/28"], "203.0.113.16", false],
    [["0.0.0.0/0"], "198.51.100.1", true],
    // A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d.
    [["127.0.0.1"], "::ffff:127.0.0.1", true],
    [["127.0.0.0/8"], "::ffff:7f00:1", true],
    [["::ffff:10.0.0.0/104"], "10.1.2.3", true],
    [["::ffff:10.0.0.0/104"], "11.1.2.3", false],
    [["::1"], "::1", true],
    [["::1"], "0:0:0:0:0:0:0:1", true],
    [["2001:db8::/32"], "2001:db8:ffff::1", true],
    [["2001:db8::/32"], "2001:db9::1", false],
    [["fe80::/10"], "fe80::1%eth0", true],
    // IPv4 ranges never match IPv6 addresses, and the reverse.
    [["0.0.0.0/0"], "2001:db8::1", false],
    [["::/0"], "198.51.100.1", false],
    [["10.0.0.0/8"], "local", false],
  ];
  for (const [ranges, address, inside] of cases)
    test(`${address} ${inside ? "in" : "not in"} ${ranges.join(",")}`, () => {
      expect(new AddressRanges(ranges).has(address)).toBe(inside);
    });

  test("what is not an address or a range", () => {
    for (const bad of [
      "",
      "tradingview",
      "10.0.0.0/33",
      "::/129",
      "1.2.3",
      "10.0.0.0/8/8",
      "10.0.0.0/x",
      "256.1.1.1",
      "::ffff:10.0.0.0/95",
    ])
      expect(parseRange(bad), bad).toBeNull();
  });

  test("the word tradingview stands for TradingView's four published addresses", () => {
    const tv = allowListRanges(["TradingView"]);
    for (const a of ["52.89.214.238", "34.212.75.30", "54.218.53.128", "52.32.178.7"]) expect(tv.has(a)).toBe(true);
    expect(tv.has("52.89.214.237")).toBe(false);
  });

  test("TRUSTED_PROXIES refuses what is not an address or a CIDR, naming the variable", () => {
    expect(loadConfig({ TRUSTED_PROXIES: " 127.0.0.1 , 10.0.0.0/8" }).TRUSTED_PROXIES).toEqual([
      "127.0.0.1",
      "10.0.0.0/8",
    ]);
    try {
      loadConfig({ TRUSTED_PROXIES: "caddy" });
      throw new Error("accepted");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        "TRUSTED_PROXIES: must be IP addresses or CIDR ranges, comma separated",
      ]);
    }
  });
});
