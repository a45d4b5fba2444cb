import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * JWT_SECRET when given; otherwise a random 256-bit secret generated once and kept next to the
 * database (mode 0600) so tokens survive restarts (PRODUCT.md §1).
 */
export function resolveJwtSecret(configured: string | undefined, databasePath: string): Uint8Array {
  if (configured) return new TextEncoder().encode(configured);
  const dir = databasePath === ":memory:" ? null : dirname(resolve(databasePath));
  if (!dir) return new Uint8Array(randomBytes(32));
  const file = join(dir, "jwt-secret");
  if (existsSync(file)) {
    const hex = readFileSync(file, "utf8").trim();
    if (/^[0-9a-f]{64}$/.test(hex)) return new Uint8Array(Buffer.from(hex, "hex"));
  }
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32);
  writeFileSync(file, `${secret.toString("hex")}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return new Uint8Array(secret);
}
