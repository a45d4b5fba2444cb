import { type Clock, isoNow } from "../clock.ts";
import { type DatabaseHandle, inTransaction } from "../db/client.ts";
import { WatchGroupRepository, type WatchGroupRow } from "../db/repositories/wallet-watch-groups.ts";
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

const toGroup = (r: WatchGroupRow): WatchGroup => ({
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
  private readonly groups: WatchGroupRepository;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
  ) {
    this.groups = new WatchGroupRepository(database);
  }

  private owned(userId: string, id: string): WatchGroupRow {
    const row = this.groups.owned(userId, id);
    if (!row) throw new NotFoundError("Wallet watch group not found");
    return row;
  }

  private checkName(userId: string, name: string, id: string | null): void {
    const same = this.groups.idByName(userId, name);
    if (same !== undefined && same !== id) throw new ConflictError("A group with this name exists");
  }

  private static checkCount(addresses: string[], minWallets: number): void {
    if (minWallets > addresses.length) throw new ConflictError("minWallets cannot be more than the group's addresses");
  }

  create(userId: string, input: GroupInput): WatchGroup {
    const now = isoNow(this.clock);
    const id = crypto.randomUUID();
    const addresses = [...new Set(input.addresses)];
    WatchGroupService.checkCount(addresses, input.minWallets);
    inTransaction(this.database, () => {
      this.checkName(userId, input.name, null);
      this.groups.insert({
        id,
        userId,
        ...input,
        addresses: JSON.stringify(addresses),
        createdAt: now,
        updatedAt: now,
      });
    });
    return this.get(userId, id);
  }

  list(userId: string): WatchGroup[] {
    return this.groups.listOf(userId).map(toGroup);
  }

  get(userId: string, id: string): WatchGroup {
    return toGroup(this.owned(userId, id));
  }

  update(userId: string, id: string, patch: Partial<GroupInput>): WatchGroup {
    inTransaction(this.database, () => {
      const row = toGroup(this.owned(userId, id));
      const addresses = patch.addresses ? [...new Set(patch.addresses)] : row.addresses;
      WatchGroupService.checkCount(addresses, patch.minWallets ?? row.minWallets);
      if (patch.name !== undefined) this.checkName(userId, patch.name, id);
      this.groups.update(id, { ...patch, addresses: JSON.stringify(addresses), updatedAt: isoNow(this.clock) });
    });
    return this.get(userId, id);
  }

  delete(userId: string, id: string): void {
    this.owned(userId, id);
    this.groups.delete(id);
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
    const addresses = this.groups.buyerAddresses(userId, mint, from, to);
    return [...new Set(addresses)].filter((a) => g.addresses.includes(a));
  }

  /**
   * Claims the group's signal for `mint` at `atMs`: false when the group signalled this mint
   * within its window already. Runs inside the signal's commit (never twice, across restarts).
   */
  claim(g: WatchGroup, mint: string, atMs: number): boolean {
    const since = new Date(atMs - g.windowSeconds * 1000).toISOString();
    if (this.groups.signalledSince(g.id, mint, since)) return false;
    this.groups.insertSignal(g.id, mint, new Date(atMs).toISOString());
    return true;
  }

  link(g: WatchGroup, mint: string, atMs: number, signalId: number): void {
    this.groups.linkSignal(g.id, mint, new Date(atMs).toISOString(), signalId);
  }
}
