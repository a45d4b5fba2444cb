import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

// Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of
// 32 random bytes; each request carries webhook-id, webhook-timestamp (Unix seconds) and
// webhook-signature `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. Signing goes through the
// same library receivers verify with, so the two cannot drift apart.

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export function signatureHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  };
}

/** Every text form of a secret a leak scan must look for (the whsec_ text and its key bytes). */
export function secretForms(secret: string): string[] {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return [secret, secret.replace(/^whsec_/, ""), key.toString("hex"), key.toString("base64url")];
}
