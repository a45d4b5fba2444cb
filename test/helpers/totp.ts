import { createHmac } from "node:crypto";

// The tests' own RFC 6238 TOTP (HMAC-SHA-1, 30 s steps), written apart from src/auth/totp.ts so a
// code the service accepts is computed by something other than the service's code;
// test/auth/two-factor.test.ts checks it against the RFC's appendix B vectors.

export function fromBase32(text: string): Buffer {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  const bits = [...text.toUpperCase()].map((c) => alphabet.indexOf(c).toString(2).padStart(5, "0")).join("");
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(Number.parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** The code of `key` at `epochMs` (6 digits unless told). */
export function totpCode(key: Buffer, epochMs: number, digits = 6): string {
  const counter = Math.floor(epochMs / 30_000);
  const msg = Buffer.alloc(8);
  msg.writeUInt32BE(Math.floor(counter / 2 ** 32), 0);
  msg.writeUInt32BE(counter % 2 ** 32, 4);
  const mac = createHmac("sha1", key).update(msg).digest();
  const o = mac[19]! & 0xf;
  const n = ((mac[o]! & 0x7f) << 24) | (mac[o + 1]! << 16) | (mac[o + 2]! << 8) | mac[o + 3]!;
  return String(n % 10 ** digits).padStart(digits, "0");
}

/** The 6-digit code of a base32 secret (as the setup answer shows it) at `epochMs`. */
export const totp = (secret: string, epochMs: number): string => totpCode(fromBase32(secret), epochMs);
