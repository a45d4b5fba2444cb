import { randomInt } from "node:crypto";
import type { AuditLog } from "../../audit/audit-log.ts";
import { sha256Hex } from "../../auth/hashing.ts";
import { type Clock, isoNow } from "../../clock.ts";
import type { TelegramRepository } from "../../db/repositories/telegram.ts";

// Linking a Telegram chat: the user asks the API for a one-time code, then sends
// `/start CODE` to the bot. Codes live 10 minutes, one per user, stored only as SHA-256 digests
// (a code is a short-lived credential), and are deleted when used.

const LINK_CODE_TTL_MS = 10 * 60_000;
// No 0/O, 1/I/L: codes are typed by hand on a phone.
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

export class LinkCodes {
  constructor(
    private readonly repo: TelegramRepository,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  create(userId: string): { code: string; expiresAt: string } {
    let code = "";
    for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    const expiresAt = new Date(this.clock.now() + LINK_CODE_TTL_MS).toISOString();
    const now = isoNow(this.clock);
    this.repo.pruneExpiredCodes(now);
    this.repo.putCode(userId, sha256Hex(code), expiresAt, now);
    return { code, expiresAt };
  }

  /** Links the chat to the code's user; null when the code is unknown, used or expired. */
  redeem(code: string, chatId: string): string | null {
    const userId = this.repo.redeemCode(sha256Hex(code.trim().toUpperCase()), chatId, isoNow(this.clock));
    if (userId) this.audit.record({ userId, action: "telegram.linked", actor: "telegram", target: chatId });
    return userId;
  }

  userOfChat(chatId: string): string | null {
    return this.repo.linkOf(chatId)?.userId ?? null;
  }

  chatsOf(userId: string): string[] {
    return this.repo.linksOf(userId).map((l) => l.chatId);
  }

  links(userId: string): Array<{ chatId: string; linkedAt: string }> {
    return this.repo.linksOf(userId).map((l) => ({ chatId: l.chatId, linkedAt: l.linkedAt }));
  }

  unlink(userId: string, chatId: string): boolean {
    return this.repo.unlink(userId, chatId);
  }

  unlinkChat(chatId: string): boolean {
    return this.repo.unlinkChat(chatId);
  }
}
