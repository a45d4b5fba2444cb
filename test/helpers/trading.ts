import { balanceOf } from "../agents/fixtures.ts";
import { type FakeMarket, startFakeMarket } from "../fakes/market.ts";
import { FakeSolanaRpc } from "../fakes/solana-rpc.ts";
import { type ContextOptions, createApiKey, createTestContext, json, login, type TestContext } from "./context.ts";

// A real service wired to the fake market, logged in, with a signals key: the base of every
// trading end-to-end test. Signals are processed by the real queue; `settle()` waits for it.

export const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
export const MINT2 = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";
/**
 * Token account rent a simulated first buy of a mint pays with its fees (in the position's cost and
 * P/L), returned to the wallet's SOL, not the sale or the P/L, when the sale that closes the
 * position closes the account, less the 0.000005 SOL fee of closing it (issue 15;
 * src/trading/settlement/simulation.ts).
 */
export const RENT = "0.00203928";

export interface TradingContext {
  fake: FakeMarket;
  /** The fake Solana node, when started with `rpc: true`. */
  rpc?: FakeSolanaRpc;
  ctx: TestContext;
  token: string;
  userId: string;
  apiKey: string;
  createAgent(opts?: {
    name?: string;
    config?: Record<string, unknown>;
    automated?: boolean;
    tradingMode?: "simulation" | "live";
    token?: string;
  }): Promise<{ id: string; walletAddress: string }>;
  postSignal(body?: Record<string, unknown>, apiKey?: string): Promise<{ id: number }>;
  settle(): Promise<void>;
  positions(agentId: string): Promise<any[]>;
  solBalance(agentId: string): string;
  tokenBalance(agentId: string, mint?: string): string;
  count(table: string, where?: string, ...params: Array<string | number>): number;
  close(): Promise<void>;
}

export async function startTrading(
  opts: ContextOptions & { solUsd?: number; tokenUsd?: string; rpc?: boolean } = {},
): Promise<TradingContext> {
  const fake = await startFakeMarket();
  // A Solana node on the same fake (SOLANA_RPC_URL), for what the service reads over RPC.
  const rpc = opts.rpc ? new FakeSolanaRpc(fake) : undefined;
  fake.setSolPrice(opts.solUsd ?? 100);
  fake.setToken(MINT, {
    symbol: "BONK",
    priceUsd: opts.tokenUsd ?? "0.01",
    decimals: 6,
    liquidityUsd: 250_000,
    marketCapUsd: 3_000_000,
  });
  fake.setToken(MINT2, { symbol: "WIF", priceUsd: "2", decimals: 6 });
  const ctx = await createTestContext({
    ...opts,
    env: { ...fake.env(), ...rpc?.env(), ...opts.env },
    services: { ...fake.serviceOptions(), ...opts.services },
  });
  const session = await login(ctx);
  const apiKey = (await createApiKey(ctx, session.token, ["signals"])).key;

  // Agent names are unique per user: unnamed agents are "agent", "agent 2", "agent 3", ...
  let unnamed = 0;
  const t: TradingContext = {
    fake,
    rpc,
    ctx,
    token: session.token,
    userId: session.user.id,
    apiKey,
    async createAgent(o = {}) {
      const tok = o.token ?? session.token;
      const res = await ctx.request("POST", "/api/v1/agents", {
        token: tok,
        body: {
          name: o.name ?? (++unnamed === 1 ? "agent" : `agent ${unnamed}`),
          tradingMode: o.tradingMode ?? "simulation",
        },
      });
      if (res.status !== 201) throw new Error(`agent creation failed: ${res.status} ${await res.text()}`);
      const agent = await json(res);
      if (o.automated !== false) {
        const up = await ctx.request("PUT", `/api/v1/agents/${agent.id}`, {
          token: tok,
          body: { automatedTradingSimulation: true, automatedTradingLive: true },
        });
        if (up.status !== 200) throw new Error(`agent update failed: ${up.status} ${await up.text()}`);
      }
      if (o.config) {
        const c = await ctx.request("PUT", `/api/v1/agents/${agent.id}/config`, {
          token: tok,
          body: { config: o.config },
        });
        if (c.status !== 200) throw new Error(`config update failed: ${c.status} ${await c.text()}`);
      }
      const w = ctx.database.sqlite
        .query<{ a: string }, [string]>(
          "SELECT wallet_address AS a FROM agent_wallets WHERE agent_id = ? AND wallet_type = 'simulation'",
        )
        .get(agent.id);
      return { id: agent.id, walletAddress: w?.a ?? "" };
    },
    async postSignal(body = {}, key = apiKey) {
      const res = await ctx.request("POST", "/api/v1/trading-signals", {
        apiKey: key,
        body: { tokenAddress: MINT, symbol: "BONK", signalType: "buy", signalStrength: 4, ...body },
      });
      if (res.status !== 201) throw new Error(`signal failed: ${res.status} ${await res.text()}`);
      return json(res);
    },
    settle: () => ctx.services.signalQueue.idle(),
    async positions(agentId) {
      const res = await ctx.request("GET", `/api/v1/agent-positions/${agentId}`, { token: session.token });
      if (res.status !== 200) throw new Error(`positions failed: ${res.status} ${await res.text()}`);
      return json(res);
    },
    solBalance: (agentId) => balanceOf(ctx, agentId),
    tokenBalance: (agentId, mint = MINT) => balanceOf(ctx, agentId, mint),
    count(table, where = "1=1", ...params) {
      return ctx.database.sqlite
        .query<{ n: number }, Array<string | number>>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
        .get(...params)!.n;
    },
    async close() {
      await ctx.close();
      await fake.stop();
    },
  };
  return t;
}
