import { createHmac } from "node:crypto";

/**
 * The current code of a base32 TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s), computed here on its
 * own rather than with src/auth/totp.ts, so a test of the service's second factor checks it
 * against a separate implementation.
 */
export function totp(secret: string, epochMs: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...secret].map((c) => alphabet.indexOf(c).toString(2).padStart(5, "0")).join("");
  const key = Buffer.from(bits.match(/.{8}/g)!.map((b) => Number.parseInt(b, 2)));
  const msg = Buffer.alloc(8);
  msg.writeUInt32BE(Math.floor(epochMs / 30_000), 4);
  const mac = createHmac("sha1", key).update(msg).digest();
  const o = mac[19]! & 0xf;
  return String((mac.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}
