import { createHmac, randomBytes } from "node:crypto";

// RFC 4226 HOTP and RFC 6238 TOTP (SHA-1, 30 s steps) over node:crypto, and the RFC 4648 base32
// that authenticator apps read secrets in. Pure functions: the caller supplies the time.

const STEP_S = 30;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4226 §5.3: HMAC-SHA-1 over the 8-byte big-endian counter, dynamically truncated. */
export function hotp(secret: Uint8Array, counter: number, digits = 6): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac("sha1", secret).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The RFC 6238 time step of an instant (epoch milliseconds). */
function totpStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / STEP_S);
}

/**
 * The step a 6-digit code belongs to within one step of drift either way, or null. Steps at or
 * before `lastUsedStep` are refused: a code is accepted once, and an older one after a newer.
 */
export function matchTotp(secret: Uint8Array, code: string, nowMs: number, lastUsedStep: number | null): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(nowMs);
  for (const step of [now - 1, now, now + 1]) {
    if (lastUsedStep !== null && step <= lastUsedStep) continue;
    if (hotp(secret, step) === code) return step;
  }
  return null;
}

/** 20 random bytes (RFC 4226's recommended 160 bits), base32 without padding. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, "").toUpperCase();
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of clean) {
    const value = ALPHABET.indexOf(ch);
    if (value < 0) throw new Error("not base32");
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/** The Key Uri Format authenticator apps scan: otpauth://totp/Issuer:account?secret=…&issuer=… */
export function otpauthUrl(secret: string, account: string, issuer = "Trading Agent"): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  // encodeURIComponent, not URLSearchParams: some apps show a '+' for a space literally.
  const query = `secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=6&period=${STEP_S}`;
  return `otpauth://totp/${label}?${query}`;
}
