import { expect } from "bun:test";
import { Big, SOL_MINT } from "../../src/money.ts";
import { json, type TestContext } from "../helpers/context.ts";

// Fixtures shared by the agent, wallet and ledger tests: agents through the API, and rows the
// trading engine would write (positions, swaps) inserted straight into the real database.

export interface AgentBody {
  id: string;
  userId: string;
  name: string;
  tradingMode: "simulation" | "live";
  automatedTradingSimulation: boolean;
  automatedTradingLive: boolean;
  createdAt: string;
  updatedAt: string;
}

export async function createAgent(
  ctx: TestContext,
  token: string,
  body: Record<string, unknown> = {},
): Promise<AgentBody> {
  const res = await ctx.request("POST", "/api/v1/agents", {
    token,
    body: { name: `agent-${crypto.randomUUID().slice(0, 6)}`, ...body },
  });
  expect(res.status).toBe(201);
  return json<AgentBody>(res);
}

/** The agent's simulation wallet address, read from the database. */
export function simulationWalletOf(ctx: TestContext, agentId: string): string {
  const row = ctx.database.sqlite
    .query<{ wallet_address: string }, [string]>(
      "SELECT wallet_address FROM agent_wallets WHERE agent_id = ? AND wallet_type = 'simulation'",
    )
    .get(agentId);
  if (!row) throw new Error("agent has no simulation wallet");
  return row.wallet_address;
}

export interface PositionFixture {
  agentId: string;
  walletAddress: string;
  tokenAddress?: string;
  tokenSymbol?: string;
  status?: "open" | "closed";
  entryPriceSol?: string;
  entryPriceUsd?: string;
  purchaseAmount?: string;
  costSol?: string;
  remainingAmount?: string;
  lastPriceSol?: string | null;
  lastPriceUsd?: string | null;
  realizedProfitSol?: string;
  openedAt?: string;
}

/** A position row as the trading engine would write it. */
export function insertPosition(ctx: TestContext, p: PositionFixture): string {
  const id = crypto.randomUUID();
  const now = p.openedAt ?? new Date(ctx.clock.now()).toISOString();
  ctx.database.sqlite
    .query(
      `INSERT INTO positions (id, agent_id, wallet_address, trading_mode, token_address, token_symbol, token_decimals, status,
         entry_price_sol, entry_price_usd, purchase_amount, cost_sol, cost_usd, opening_sol, held_cost_sol, remaining_amount,
         peak_price_sol, last_price_sol, last_price_usd, realized_profit_sol, purchase_transaction_id, purchase_transaction_hash,
         opened_at, created_at, updated_at)
       VALUES (?, ?, ?, 'simulation', ?, ?, 6, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      p.agentId,
      p.walletAddress,
      p.tokenAddress ?? `Tok${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`,
      p.tokenSymbol ?? "TOK",
      p.status ?? "open",
      p.entryPriceSol ?? "0.001",
      p.entryPriceUsd ?? "0.15",
      p.purchaseAmount ?? "1000",
      p.costSol ?? "1",
      "150",
      p.costSol ?? "1",
      // The cost of the tokens held at average cost (no DCA after a sale in these fixtures).
      new Big(p.costSol ?? "1")
        .times(p.remainingAmount ?? p.purchaseAmount ?? "1000")
        .div(p.purchaseAmount ?? "1000")
        .toFixed(),
      p.remainingAmount ?? p.purchaseAmount ?? "1000",
      p.entryPriceSol ?? "0.001",
      p.lastPriceSol ?? null,
      p.lastPriceUsd ?? null,
      p.realizedProfitSol ?? "0",
      crypto.randomUUID(),
      "sim-hash",
      now,
      now,
      now,
    );
  return id;
}

/** An agent's balance of a mint (SOL by default) as agent_balances holds it; "0" without a row. */
export function balanceOf(ctx: Pick<TestContext, "database">, agentId: string, mint = SOL_MINT): string {
  return (
    ctx.database.sqlite
      .query<{ b: string }, [string, string]>(
        "SELECT balance AS b FROM agent_balances WHERE agent_id = ? AND token_address = ?",
      )
      .get(agentId, mint)?.b ?? "0"
  );
}
