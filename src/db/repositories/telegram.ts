import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { type DatabaseHandle, inTransaction } from "../client.ts";
import { telegramLinkCodes, telegramLinks } from "../schema/index.ts";

// telegram_links and telegram_link_codes, written only from here.

export type TelegramLinkRow = typeof telegramLinks.$inferSelect;

export class TelegramRepository {
  constructor(private readonly database: DatabaseHandle) {}

  private get db() {
    return this.database.db;
  }

  /** One live code per user: a new one replaces the last. */
  putCode(userId: string, codeHash: string, expiresAt: string, createdAt: string): void {
    inTransaction(this.database, () => {
      this.db.delete(telegramLinkCodes).where(eq(telegramLinkCodes.userId, userId)).run();
      this.db.insert(telegramLinkCodes).values({ codeHash, userId, expiresAt, createdAt }).run();
    });
  }

  /**
   * Uses a code: when it exists and has not expired, links the chat to its user (a chat already
   * linked moves to that user) and deletes the code, in one transaction. Returns the user id.
   */
  redeemCode(codeHash: string, chatId: string, now: string): string | null {
    return inTransaction(this.database, () => {
      const code = this.db
        .select()
        .from(telegramLinkCodes)
        .where(and(eq(telegramLinkCodes.codeHash, codeHash), gt(telegramLinkCodes.expiresAt, now)))
        .get();
      if (!code) return null;
      this.db.delete(telegramLinkCodes).where(eq(telegramLinkCodes.codeHash, codeHash)).run();
      this.db
        .insert(telegramLinks)
        .values({ chatId, userId: code.userId, linkedAt: now, lastSummaryOn: null })
        .onConflictDoUpdate({ target: telegramLinks.chatId, set: { userId: code.userId, linkedAt: now } })
        .run();
      return code.userId;
    });
  }

  pruneExpiredCodes(now: string): void {
    this.db.delete(telegramLinkCodes).where(lt(telegramLinkCodes.expiresAt, now)).run();
  }

  linkOf(chatId: string): TelegramLinkRow | undefined {
    return this.db.select().from(telegramLinks).where(eq(telegramLinks.chatId, chatId)).get();
  }

  linksOf(userId: string): TelegramLinkRow[] {
    return this.db.select().from(telegramLinks).where(eq(telegramLinks.userId, userId)).all();
  }

  unlink(userId: string, chatId: string): boolean {
    return (
      this.db
        .delete(telegramLinks)
        .where(and(eq(telegramLinks.userId, userId), eq(telegramLinks.chatId, chatId)))
        .returning({ one: sql`1` })
        .all().length > 0
    );
  }

  unlinkChat(chatId: string): boolean {
    return (
      this.db.delete(telegramLinks).where(eq(telegramLinks.chatId, chatId)).returning({ one: sql`1` }).all().length > 0
    );
  }

  /** Links whose last daily summary is older than `day` (YYYY-MM-DD). */
  summaryDue(day: string): TelegramLinkRow[] {
    return this.db
      .select()
      .from(telegramLinks)
      .where(or(isNull(telegramLinks.lastSummaryOn), lt(telegramLinks.lastSummaryOn, day)))
      .all();
  }

  markSummarySent(chatId: string, day: string): void {
    this.db.update(telegramLinks).set({ lastSummaryOn: day }).where(eq(telegramLinks.chatId, chatId)).run();
  }
}
