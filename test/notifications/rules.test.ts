import { expect, test } from "bun:test";
import { inQuietHours } from "../../src/notifications/preferences.ts";
import { SecretBox } from "../../src/notifications/secret-box.ts";
import { afterAttempt, shouldDisable } from "../../src/notifications/webhooks/retry-schedule.ts";
import { classifyAddress } from "../../src/notifications/webhooks/ssrf-guard.ts";

// The pure rules of notifications, as tables: address classes of the SSRF guard, quiet hours,
// the retry schedule and the secret box.

test.each([
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["127.0.0.1", "private"],
  ["127.255.255.254", "private"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", "public"],
  ["192.168.1.1", "private"],
  ["169.254.1.1", "private"],
  ["100.64.0.1", "private"],
  ["0.0.0.0", "private"],
  ["224.0.0.1", "private"],
  ["255.255.255.255", "private"],
  ["169.254.169.254", "metadata"],
  ["100.100.100.200", "metadata"],
  ["::1", "private"],
  ["::", "private"],
  ["fe80::1", "private"],
  ["fc00::1", "private"],
  ["fd12:3456::1", "private"],
  ["ff02::1", "private"],
  ["::ffff:127.0.0.1", "private"],
  ["::ffff:7f00:1", "private"],
  ["::ffff:8.8.8.8", "public"],
  ["64:ff9b::10.0.0.1", "private"],
  ["fd00:ec2::254", "metadata"],
  ["2606:4700:4700::1111", "public"],
  ["not-an-ip", "private"],
])("%s is %s", (ip, cls) => {
  expect(classifyAddress(ip)).toBe(cls as ReturnType<typeof classifyAddress>);
});

test.each([
  ["2026-01-01T22:30:00Z", { start: "22:00", end: "07:00", timezone: "UTC" }, true],
  ["2026-01-01T06:59:00Z", { start: "22:00", end: "07:00", timezone: "UTC" }, true],
  ["2026-01-01T07:00:00Z", { start: "22:00", end: "07:00", timezone: "UTC" }, false],
  ["2026-01-01T21:59:00Z", { start: "22:00", end: "07:00", timezone: "UTC" }, false],
  ["2026-01-01T12:00:00Z", { start: "12:00", end: "13:00", timezone: "UTC" }, true],
  ["2026-01-01T13:00:00Z", { start: "12:00", end: "13:00", timezone: "UTC" }, false],
  // 21:30 UTC is 22:30 in Berlin in winter, 23:30 in summer.
  ["2026-01-01T21:30:00Z", { start: "22:00", end: "23:00", timezone: "Europe/Berlin" }, true],
  ["2026-07-01T21:30:00Z", { start: "22:00", end: "23:00", timezone: "Europe/Berlin" }, false],
])("at %s quiet hours %o: %p", (at, q, expected) => {
  expect(inQuietHours(q, Date.parse(at))).toBe(expected);
  expect(inQuietHours(null, Date.parse(at))).toBe(false);
});

test("retry schedule and the 24 h disable rule", () => {
  const t0 = 1_000_000;
  expect(afterAttempt(1, true, t0)).toEqual({ kind: "delivered" });
  expect(afterAttempt(1, false, t0)).toEqual({ kind: "retry", nextAttemptAt: t0 + 5_000 });
  expect(afterAttempt(6, false, t0)).toEqual({ kind: "retry", nextAttemptAt: t0 + 21_600_000 });
  expect(afterAttempt(7, false, t0)).toEqual({ kind: "given_up" });
  expect(shouldDisable(null, t0)).toBe(false);
  expect(shouldDisable(t0, t0 + 24 * 3_600_000 - 1)).toBe(false);
  expect(shouldDisable(t0, t0 + 24 * 3_600_000)).toBe(true);
});

test("the secret box opens what it sealed, and nothing under another key or tampered", () => {
  const box = new SecretBox(new TextEncoder().encode("a".repeat(32)), "webhook-secrets");
  const sealed = box.seal("whsec_abc");
  expect(sealed).not.toContain("whsec_abc");
  expect(box.seal("whsec_abc")).not.toBe(sealed); // fresh IV each time
  expect(box.open(sealed)).toBe("whsec_abc");
  expect(new SecretBox(new TextEncoder().encode("b".repeat(32)), "webhook-secrets").open(sealed)).toBeNull();
  expect(new SecretBox(new TextEncoder().encode("a".repeat(32)), "other").open(sealed)).toBeNull();
  const [v, iv, body] = sealed.split(".");
  // Change the second-to-last character (the last may hold only padding bits) to one it is not.
  const flipped = `${v}.${iv}.${body!.slice(0, -2)}${body!.at(-2) === "A" ? "B" : "A"}${body!.slice(-1)}`;
  expect(flipped).not.toBe(sealed);
  expect(box.open(flipped)).toBeNull();
  expect(box.open("garbage")).toBeNull();
});
