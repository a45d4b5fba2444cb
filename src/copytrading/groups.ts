import { and, desc, eq, gt, sql } from "drizzle-orm";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { walletWatches, walletWatchGroupSignals, walletWatchGroups, walletWatchTrades } from "../db/schema/index.ts";
import { ConflictError, NotFoundError } from "../errors.ts";

// Watch groups (docs/decisions/copy-trading-steering.md "Groups"): several followed wallets, a
// window T and a count N. When N different wallets of the group have bought the same mint within
// T (each buy a copied trade of one of the user's watches: signed DEX swaps, fresh), the group
// makes one signal of source `group:<name>`, once per mint per window.

export interface GroupInput {
  name: string;
  addresses: string[];
  windowSeconds: number;
  minWallets: number;
  signalStrength: number;
  enabled: boolean;
}

export interface WatchGroup extends GroupInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}

type Row = typeof walletWatchGroups.$inferSelect;

const toGroup = (r: Row): WatchGroup => ({
  id: r.id,
  name: r.name,
  addresses: JSON.parse(r.addresses) as string[],
  windowSeconds: r.windowSeconds,
  minWallets: r.minWallets,
  signalStrength: r.signalStrength,
  enabled: r.enabled,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export class WatchGroupService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
  ) {}

  private get db() {
    return this.database.db;
  }

  private owned(userId: string, id: string): Row {
    const row = this.db
      .select()
      .from(walletWatchGroups)
      .where(and(eq(walletWatchGroups.id, id), eq(walletWatchGroups.userId, userId)))
      .get();
    if (!row) throw new NotFoundError("Wallet watch group not found");
    return row;
  }

  private checkName(userId: string, name: string, id: string | null): void {
    const same = this.db
      .select({ id: walletWatchGroups.id })
      .from(walletWatchGroups)
      .where(and(eq(walletWatchGroups.userId, userId), eq(walletWatchGroups.name, name)))
      .get();
    if (same && same.id !== id) throw new ConflictError("A group with this name exists");
  }

  private static checkCount(addresses: string[], minWallets: number): void {
    if (minWallets > addresses.length) throw new ConflictError("minWallets cannot be more than the group's addresses");
  }

  create(userId: string, input: GroupInput): WatchGroup {
    const now = isoNow(this.clock);
    const id = crypto.randomUUID();
    const addresses = [...new Set(input.addresses)];
    WatchGroupService.checkCount(addresses, input.minWallets);
    this.database.sqlite.transaction(() => {
      this.checkName(userId, input.name, null);
      this.db
        .insert(walletWatchGroups)
        .values({ id, userId, ...input, addresses: JSON.stringify(addresses), createdAt: now, updatedAt: now })
        .run();
    })();
    return this.get(userId, id);
  }

  list(userId: string): WatchGroup[] {
    return this.db
      .select()
      .from(walletWatchGroups)
      .where(eq(walletWatchGroups.userId, userId))
      .orderBy(desc(walletWatchGroups.createdAt), desc(walletWatchGroups.id))
      .all()
      .map(toGroup);
  }

  get(userId: string, id: string): WatchGroup {
    return toGroup(this.owned(userId, id));
  }

  update(userId: string, id: string, patch: Partial<GroupInput>): WatchGroup {
    this.database.sqlite.transaction(() => {
      const row = toGroup(this.owned(userId, id));
      const addresses = patch.addresses ? [...new Set(patch.addresses)] : row.addresses;
      WatchGroupService.checkCount(addresses, patch.minWallets ?? row.minWallets);
      if (patch.name !== undefined) this.checkName(userId, patch.name, id);
      this.db
        .update(walletWatchGroups)
        .set({ ...patch, addresses: JSON.stringify(addresses), updatedAt: isoNow(this.clock) })
        .where(eq(walletWatchGroups.id, id))
        .run();
    })();
    return this.get(userId, id);
  }

  delete(userId: string, id: string): void {
    this.owned(userId, id);
    this.db.delete(walletWatchGroups).where(eq(walletWatchGroups.id, id)).run();
  }

  /** The user's enabled groups that include `address`. */
  groupsOf(userId: string, address: string): WatchGroup[] {
    return this.list(userId).filter((g) => g.enabled && g.addresses.includes(address));
  }

  /**
   * The group's wallets that bought `mint` (a detected, not ignored, buy of one of the user's
   * watches) with a block time in (atMs - T, atMs], by address, first buy each.
   */
  buyersWithin(userId: string, g: WatchGroup, mint: string, atMs: number): string[] {
    const from = new Date(atMs - g.windowSeconds * 1000).toISOString();
    const to = new Date(atMs).toISOString();
    const rows = this.db
      .select({ address: walletWatches.address })
      .from(walletWatchTrades)
      .innerJoin(walletWatches, eq(walletWatches.id, walletWatchTrades.watchId))
      .where(
        and(
          eq(walletWatches.userId, userId),
          eq(walletWatchTrades.side, "buy"),
          eq(walletWatchTrades.mint, mint),
          sql`${walletWatchTrades.ignoredReason} IS NULL`,
          gt(walletWatchTrades.blockTime, from),
          sql`${walletWatchTrades.blockTime} <= ${to}`,
        ),
      )
      .all();
    return [...new Set(rows.map((r) => r.address))].filter((a) => g.addresses.includes(a));
  }

  /**
   * Claims the group's signal for `mint` at `atMs`: false when the group signalled this mint
   * within its window already. Runs inside the signal's commit (never twice, across restarts).
   */
  claim(g: WatchGroup, mint: string, atMs: number): boolean {
    const since = new Date(atMs - g.windowSeconds * 1000).toISOString();
    const recent = this.db
      .select({ id: walletWatchGroupSignals.id })
      .from(walletWatchGroupSignals)
      .where(
        and(
          eq(walletWatchGroupSignals.groupId, g.id),
          eq(walletWatchGroupSignals.mint, mint),
          gt(walletWatchGroupSignals.at, since),
        ),
      )
      .get();
    if (recent) return false;
    this.db
      .insert(walletWatchGroupSignals)
      .values({ groupId: g.id, mint, at: new Date(atMs).toISOString() })
      .run();
    return true;
  }

  link(g: WatchGroup, mint: string, atMs: number, signalId: number): void {
    this.db
      .update(walletWatchGroupSignals)
      .set({ signalId })
      .where(
        and(
          eq(walletWatchGroupSignals.groupId, g.id),
          eq(walletWatchGroupSignals.mint, mint),
          eq(walletWatchGroupSignals.at, new Date(atMs).toISOString()),
        ),
      )
      .run();
  }
}
