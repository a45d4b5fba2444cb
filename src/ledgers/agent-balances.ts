import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { type BalanceRecord, listBalances } from "../db/repositories/balances.ts";
import { type BalanceInsert, balanceLedger } from "../db/repositories/ledgers.ts";
import { newRowId } from "../db/row-id.ts";
import type { Logger } from "../logger.ts";
import { Big, SOL_MINT } from "../money.ts";
import { canonicalAmount } from "./balance-ledger.ts";
import { LedgerCrud } from "./ledger-crud.ts";
import type { TokenPriceLookup } from "./token-price-lookup.ts";

// Agent balances (SPEC "Agent balance", "Agent balance endpoints"). The HTTP CRUD here edits the
// same rows the balance ledger credits and debits; amounts stay exact decimal text.

export interface BalanceView {
  id: string;
  agentId: string;
  walletAddress: string;
  tokenAddress: string;
  tokenSymbol: string;
  balance: string;
  lastUpdated: string;
}

export interface BalanceListItem extends BalanceView {
  /** Current price in SOL; 1 for SOL; null when no price is known. */
  priceSol: number | null;
}

const view = (r: BalanceRecord): BalanceView => ({
  id: r.id,
  agentId: r.agentId,
  walletAddress: r.walletAddress,
  tokenAddress: r.tokenAddress,
  tokenSymbol: r.tokenSymbol,
  balance: r.balance,
  lastUpdated: r.lastUpdated,
});

export class AgentBalanceService {
  private readonly crud: LedgerCrud<BalanceRecord, BalanceInsert, BalanceView>;

  constructor(
    private readonly database: DatabaseHandle,
    clock: Clock,
    private readonly logger: Logger,
    private readonly prices: TokenPriceLookup,
  ) {
    this.crud = new LedgerCrud(
      {
        repo: balanceLedger(database.db),
        notFound: "Balance not found",
        log: {
          created: "agent balance created",
          updated: "agent balance updated",
          deleted: "agent balance deleted",
          idField: "balanceId",
        },
        view,
        stamp: (now) => ({ lastUpdated: now }),
        emptyUpdate: "At least one field must be provided: balance or tokenSymbol",
        conflict: "A balance for this agent, wallet and token already exists",
      },
      database,
      clock,
      logger,
    );
  }

  /** GET /agent-balances: the agent's balances (SOL first), each with priceSol. */
  async list(
    userId: string,
    q: { agentId: string; walletAddress?: string; limit: number; offset: number },
  ): Promise<BalanceListItem[]> {
    this.crud.requireAgent(userId, q.agentId);
    const rows = listBalances(this.database, q);
    const mints = [...new Set(rows.map((r) => r.tokenAddress).filter((m) => m !== SOL_MINT))];
    let prices = new Map<string, number>();
    if (mints.length > 0) {
      try {
        prices = await this.prices.pricesInSol(mints);
      } catch (err) {
        // A price provider failure must not hide the balances themselves: prices show as null.
        this.logger.warn("token prices unavailable for balance list", {
          agentId: q.agentId,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    return rows.map((r) => ({
      ...view(r),
      priceSol: r.tokenAddress === SOL_MINT ? 1 : (prices.get(r.tokenAddress) ?? null),
    }));
  }

  get(userId: string, id: string): BalanceView {
    return this.crud.get(userId, id);
  }

  create(
    userId: string,
    input: { agentId: string; walletAddress: string; tokenAddress: string; tokenSymbol: string; balance: string },
  ): BalanceView {
    const now = this.crud.now();
    const row = {
      ...input,
      id: newRowId(),
      balance: canonicalAmount(new Big(input.balance)),
      decimals: null,
      lastUpdated: now,
      createdAt: now,
    };
    return this.crud.create(userId, row, { tokenAddress: input.tokenAddress });
  }

  update(userId: string, id: string, patch: { balance?: string; tokenSymbol?: string }): BalanceView {
    const balance = patch.balance === undefined ? undefined : canonicalAmount(new Big(patch.balance));
    return this.crud.update(userId, id, { balance, tokenSymbol: patch.tokenSymbol });
  }

  delete(userId: string, id: string): void {
    this.crud.delete(userId, id);
  }
}
