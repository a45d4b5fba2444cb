import { afterEach, beforeEach, expect } from "bun:test";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { SOL_MINT } from "../../src/money.ts";
import { LiveWalletRegistry } from "../../src/wallets/live-wallet-registry.ts";
import { type FakeMarket, startFakeMarket } from "../fakes/market.ts";
import { FakeSolanaRpc } from "../fakes/solana-rpc.ts";
import { createApiKey, createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// A real service wired to the fake market AND the fake Solana RPC, with live wallets generated
// per test (WALLET_1 as base58, WALLET_2 as a JSON array), both switches on by default, and
// confirmation polling that does not wait (the ManualClock's sleep). Every response body is kept (the secret scan reads
// them). Numbers used throughout: SOL $100, BONK $0.01 with 6 decimals, the wallet holds 2 SOL
// on chain, so 5 % = 0.1 SOL buys 1000 BONK; each swap costs 5000 lamports of signature fee plus
// the fake aggregator's 50 000-lamport priority fee (under LIVE_PRIORITY_FEE_MAX): 0.000055 SOL.
// SWAP_API=v1: the fake RPC's swap model is v1's (each transaction carries the number of the
// /swap/v1/swap request it was built for, whose quote it applies), so these tests drive the
// executor's rules (journal, outcomes, refusals, settlement) through the v1 lane; the default
// `build` lane runs end to end on litesvm (test/live-chain/build-path.test.ts and the others there).

export const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
export const MINT2 = "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm";

export interface LiveOptions {
  env?: Record<string, string>;
  /** Status polls before a swap counts as pending (default 3). */
  maxPolls?: number;
  walletSol?: string;
}

export interface LiveContext {
  fake: FakeMarket;
  rpc: FakeSolanaRpc;
  ctx: TestContext;
  token: string;
  apiKey: string;
  keypairs: Keypair[];
  /** WALLET_N values as given to the service. */
  walletEnv: Record<string, string>;
  registry: LiveWalletRegistry;
  wallet: string;
  responses: string[];
  request(method: string, path: string, body?: unknown): Promise<Response>;
  /** An agent in live mode with both automation flags, WALLET_1 assigned and its deposit checked. */
  liveAgent(opts?: {
    config?: Record<string, unknown>;
    automatedLive?: boolean;
    walletIndex?: number;
  }): Promise<{ id: string; wallet: string }>;
  postSignal(body?: Record<string, unknown>): Promise<{ id: number }>;
  settle(): Promise<void>;
  tick(): ReturnType<TestContext["services"]["trading"]["monitor"]["tick"]>;
  /** What the signal's evaluation recorded for the agent (null: none yet). */
  evaluation(signalId: number, agentId: string): { outcome: string; reason: string | null } | null;
  /** The agent's recorded balance of its LIVE wallet ("none": no row). */
  balance(agentId: string, mint?: string): string;
  count(table: string, where?: string, ...params: Array<string | number>): number;
  logLines(): Array<Record<string, any>>;
  close(): Promise<void>;
}

/** The fake market these tests trade on: SOL at $100, BONK (MINT) and WIF (MINT2). */
export async function startTwoTokenMarket(): Promise<FakeMarket> {
  const fake = await startFakeMarket();
  fake.setSolPrice(100);
  fake.setToken(MINT, {
    symbol: "BONK",
    priceUsd: "0.01",
    decimals: 6,
    liquidityUsd: 250_000,
    marketCapUsd: 3_000_000,
  });
  fake.setToken(MINT2, { symbol: "WIF", priceUsd: "2", decimals: 6 });
  return fake;
}

/**
 * The hooks of a file whose tests each run on a fresh service (nothing one test did is seen by
 * the next): started before each test and handed to `use`, closed after it. A test that needs
 * other settings calls `restart(opts)`, which closes the current service and hands over a new one.
 */
export function livePerTest(use: (l: LiveContext) => void): { restart(opts: LiveOptions): Promise<void> } {
  let current: LiveContext | null = null;
  const start = async (opts: LiveOptions) => {
    current = await startLive(opts);
    use(current);
  };
  const close = async () => {
    const l = current;
    current = null;
    await l?.close();
  };
  beforeEach(() => start({}));
  afterEach(close);
  return {
    async restart(opts) {
      await close();
      await start(opts);
    },
  };
}

export async function startLive(opts: LiveOptions = {}): Promise<LiveContext> {
  const keypairs = [Keypair.generate(), Keypair.generate()];
  const walletEnv = {
    WALLET_1: bs58.encode(keypairs[0]!.secretKey),
    WALLET_2: JSON.stringify(Array.from(keypairs[1]!.secretKey)),
  };
  const registry = LiveWalletRegistry.fromEnv(walletEnv);
  const fake = await startTwoTokenMarket();
  const rpc = new FakeSolanaRpc(fake);
  const wallet = keypairs[0]!.publicKey.toBase58();
  rpc.setSol(wallet, opts.walletSol ?? "2");
  rpc.setSol(keypairs[1]!.publicKey.toBase58(), "1");
  const ctx = await createTestContext({
    env: {
      ...fake.env(),
      ...rpc.env(),
      LIVE_TRADING_ENABLED: "true",
      WALLETS_RATE_LIMIT_PER_MINUTE: "100000",
      SWAP_API: "v1",
      ...opts.env,
    },
    services: {
      ...fake.serviceOptions(),
      liveWallets: registry,
      live: { confirmation: { maxPolls: opts.maxPolls ?? 3, pollIntervalMs: 1 } },
    },
  });
  const session = await login(ctx);
  const apiKey = (await createApiKey(ctx, session.token, ["signals"])).key;
  const responses: string[] = [];

  const request = async (method: string, path: string, body?: unknown) => {
    const res = await l.ctx.request(method, path, { token: session.token, body });
    const text = await res.clone().text();
    responses.push(text);
    return res;
  };

  const l: LiveContext = {
    fake,
    rpc,
    ctx,
    token: session.token,
    apiKey,
    keypairs,
    walletEnv,
    registry,
    wallet,
    responses,
    request,
    async liveAgent(o = {}) {
      const w = keypairs[o.walletIndex ?? 0]!.publicKey.toBase58();
      const created = await request("POST", "/api/v1/agents", {
        name: `live-${crypto.randomUUID().slice(0, 6)}`,
        tradingMode: "live",
      });
      expect(created.status).toBe(201);
      const agent = await json(created);
      const up = await request("PUT", `/api/v1/agents/${agent.id}`, {
        automatedTradingSimulation: true,
        automatedTradingLive: o.automatedLive ?? true,
      });
      expect(up.status).toBe(200);
      if (o.config)
        expect((await request("PUT", `/api/v1/agents/${agent.id}/config`, { config: o.config })).status).toBe(200);
      const assigned = await request("POST", "/api/v1/wallets/assign", {
        agentId: agent.id,
        walletAddress: w,
        walletType: "live",
      });
      expect(assigned.status).toBe(201);
      const dep = await request("POST", `/api/v1/wallets/${w}/check-deposits`);
      expect(dep.status).toBe(200);
      return { id: agent.id, wallet: w };
    },
    async postSignal(body = {}) {
      const res = await l.ctx.request("POST", "/api/v1/trading-signals", {
        apiKey,
        body: { tokenAddress: MINT, symbol: "BONK", signalType: "buy", signalStrength: 4, ...body },
      });
      responses.push(await res.clone().text());
      if (res.status !== 201) throw new Error(`signal failed: ${res.status} ${await res.text()}`);
      return json(res);
    },
    settle: () => l.ctx.services.signalQueue.idle(),
    tick: () => l.ctx.services.trading.monitor.tick(),
    evaluation(signalId, agentId) {
      return l.ctx.database.sqlite
        .query<{ outcome: string; reason: string | null }, [number, string]>(
          "SELECT outcome, reason FROM signal_evaluations WHERE signal_id = ? AND agent_id = ?",
        )
        .get(signalId, agentId);
    },
    balance(agentId, mint = SOL_MINT) {
      return (
        l.ctx.database.sqlite
          .query<{ b: string }, [string, string]>(
            "SELECT b.balance AS b FROM agent_balances b JOIN agent_wallets w ON w.agent_id = b.agent_id AND w.wallet_address = b.wallet_address AND w.wallet_type = 'live' WHERE b.agent_id = ? AND b.token_address = ?",
          )
          .get(agentId, mint)?.b ?? "none"
      );
    },
    count(table, where = "1=1", ...params) {
      return l.ctx.database.sqlite
        .query<{ n: number }, Array<string | number>>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
        .get(...params)!.n;
    },
    logLines: () => l.ctx.logs.map((line) => JSON.parse(line)),
    async close() {
      await l.ctx.close();
      await fake.stop();
    },
  };
  return l;
}
