import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

// Seals secrets the service must use again later (webhook signing secrets) so they never sit in
// the database in plain text (docs/decisions.md "Notifications"). AES-256-GCM under a key derived
// with HKDF-SHA256 from the JWT secret, which lives in configuration or in the data directory's
// 0600 file, never in the database. A stolen database file alone reveals no secret.

const VERSION = "v1";

export class SecretBox {
  private readonly key: Buffer;

  constructor(rootSecret: Uint8Array, purpose: string) {
    this.key = Buffer.from(hkdfSync("sha256", rootSecret, Buffer.alloc(0), `trading-agent ${purpose}`, 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}`;
  }

  /** The plain text, or null when the box was sealed under another key (the JWT secret changed). */
  open(sealed: string): string | null {
    const [version, ivText, bodyText] = sealed.split(".");
    if (version !== VERSION || !ivText || !bodyText) return null;
    try {
      const body = Buffer.from(bodyText, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(ivText, "base64url"));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString("utf8");
    } catch {
      return null;
    }
  }
}
