import { afterEach, beforeEach, expect } from "bun:test";
import type { Keypair, PublicKey } from "@solana/web3.js";
import bs58 from "bs58";
import { ManualClock } from "../../src/clock.ts";
import { Big, toAtomic } from "../../src/money.ts";
import { LiveWalletRegistry } from "../../src/wallets/live-wallet-registry.ts";
import { type ChainAggregator, startChainAggregator } from "../fakes/chain-aggregator.ts";
import { type FakeJitoBlockEngine, startFakeJitoBlockEngine } from "../fakes/jito-block-engine.ts";
import { type LiteSvmRpc, startLiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { type FakeMarket, startFakeMarket } from "../fakes/market.ts";
import { createApiKey, createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// The whole service in-process against litesvm: the chain's JSON-RPC shim as SOLANA_RPC_URL, the
// chain aggregator (real swap transactions on that chain) as SWAP_AGGREGATOR_URL and SOL price
// feed, live trading on, `wallet` funded with 2 SOL as WALLET_1, a logged-in user with a signals key.

export interface LiveService {
  chain: LiteSvmRpc;
  agg: ChainAggregator;
  /** The Jito block engine JITO_BLOCK_ENGINE_URL points at (opts.jito), else null. */
  jito: FakeJitoBlockEngine | null;
  /** Only for its test service options (no client-side pacing). */
  fake: FakeMarket;
  ctx: TestContext;
  token: string;
  apiKey: string;
  /** An agent with automated trading on (and `config`); a live one trades the wallet, deposits checked. */
  agent(mode: "live" | "simulation", config?: Record<string, unknown>, name?: string): Promise<string>;
  /** The agent's trades as GET /agent-transactions answers them (with `token`), oldest first. */
  records(agentId: string): Promise<TradeRecord[]>;
  /** A buy signal for `mint` posted with the signals key, the queue idle after it: the signal's id. */
  signal(mint: PublicKey, strength?: number): Promise<number>;
  stop(): Promise<void>;
}

/** A trade as GET /agent-transactions answers it: the fields the books are checked with. */
export interface TradeRecord {
  transactionType: "BUY" | "SELL";
  inputAmount: string;
  outputAmount: string;
  fees: string;
  rentDepositSol: string;
  rentRefundSol: string;
  transactionHash: string | null;
  isDca: boolean;
}

export const lamports = (sol: string): bigint => toAtomic(new Big(sol), 9);

/**
 * The wallet's SOL as the records have it (lamports): initial − Σ BUY(input + fees)
 * + Σ SELL(output − fees) − Σ rentDepositSol + Σ rentRefundSol. For a live agent it must equal
 * the wallet's chain balance.
 */
export const ledgerLamports = (initial: bigint, rows: TradeRecord[]): bigint =>
  rows.reduce(
    (s, r) =>
      (r.transactionType === "BUY"
        ? s - lamports(r.inputAmount) - lamports(r.fees)
        : s + lamports(r.outputAmount) - lamports(r.fees)) -
      lamports(r.rentDepositSol) +
      lamports(r.rentRefundSol),
    initial,
  );

/** A ManualClock whose waits can move the chain on too (a test sets onSleep for a while). */
export class ChainClock extends ManualClock {
  onSleep: ((ms: number) => void) | null = null;
  override async sleep(ms: number): Promise<void> {
    await super.sleep(ms);
    this.onSleep?.(ms);
  }
}

interface LiveServiceOptions {
  clock?: ChainClock;
  env?: Record<string, string>;
  /** Start a Jito block engine and point JITO_BLOCK_ENGINE_URL at it. */
  jito?: boolean;
  /** The URL the service is given for a fake (e.g. a delay proxy in front of it); default the fake's. */
  via?: (upstream: "aggregator" | "rpc", url: string) => string;
}

/**
 * The hooks of a file whose tests each run on a fresh service (nothing one test did is seen by
 * the next): started before each test with the options `opts()` gives then (a test's own
 * ChainClock, say) and handed to `started`; stopped after the test.
 */
export function liveServicePerTest(
  wallet: Keypair,
  started: (service: LiveService) => void,
  opts: () => LiveServiceOptions = () => ({}),
): void {
  let service: LiveService | null = null;
  beforeEach(async () => {
    service = await startLiveService(wallet, opts());
    started(service);
  });
  afterEach(async () => {
    await service?.stop();
    service = null;
  });
}

export async function startLiveService(wallet: Keypair, opts: LiveServiceOptions = {}): Promise<LiveService> {
  const chain = await startLiteSvmRpc();
  const agg = await startChainAggregator(chain);
  const jito = opts.jito ? await startFakeJitoBlockEngine(chain) : null;
  chain.airdrop(wallet.publicKey, 2_000_000_000n);
  const fake = await startFakeMarket();
  const via = opts.via ?? ((_: string, url: string) => url);
  const ctx = await createTestContext({
    clock: opts.clock,
    env: {
      SWAP_AGGREGATOR_URL: via("aggregator", agg.url),
      SOL_PRICE_FEED_URL: via("aggregator", agg.url),
      // Market data (DexScreener's shape) from the fake market: a live buy's second price source.
      MARKET_DATA_URL: fake.url,
      SOLANA_RPC_URL: via("rpc", chain.url),
      LIVE_TRADING_ENABLED: "true",
      WALLETS_RATE_LIMIT_PER_MINUTE: "100000",
      ...(jito ? { JITO_BLOCK_ENGINE_URL: jito.url } : {}),
      ...opts.env,
    },
    services: {
      ...fake.serviceOptions(),
      liveWallets: LiveWalletRegistry.fromEnv({ WALLET_1: bs58.encode(wallet.secretKey) }),
      live: { confirmation: { maxPolls: 5, pollIntervalMs: 1 } },
    },
  });
  const token = (await login(ctx)).token;
  const apiKey = (await createApiKey(ctx, token, ["signals"])).key;
  const address = wallet.publicKey.toBase58();
  // The token a test may replace (a session that expired while the clock moved on).
  const req = (method: string, path: string, body?: unknown) => ctx.request(method, path, { token: svc.token, body });
  const svc: LiveService = {
    chain,
    agg,
    jito,
    fake,
    ctx,
    token,
    apiKey,
    async agent(mode, config, name = mode) {
      const a = await json(await req("POST", "/api/v1/agents", { name, tradingMode: mode }));
      const flags = mode === "live" ? { automatedTradingLive: true } : { automatedTradingSimulation: true };
      expect((await req("PUT", `/api/v1/agents/${a.id}`, flags)).status).toBe(200);
      if (config) expect((await req("PUT", `/api/v1/agents/${a.id}/config`, { config })).status).toBe(200);
      if (mode === "live") {
        const assign = { agentId: a.id, walletAddress: address, walletType: "live" };
        expect((await req("POST", "/api/v1/wallets/assign", assign)).status).toBe(201);
        expect((await req("POST", `/api/v1/wallets/${address}/check-deposits`)).status).toBe(200);
      }
      return a.id;
    },
    async records(agentId) {
      return (await json(await req("GET", `/api/v1/agent-transactions?agentId=${agentId}`))).reverse();
    },
    async signal(mint, strength = 4) {
      const res = await ctx.request("POST", "/api/v1/trading-signals", {
        apiKey,
        body: { tokenAddress: mint.toBase58(), symbol: "POOL", signalType: "buy", signalStrength: strength },
      });
      expect(res.status).toBe(201);
      const id = (await json(res)).id as number;
      await ctx.services.signalQueue.idle();
      return id;
    },
    async stop() {
      await ctx.close();
      await agg.stop();
      await jito?.stop();
      await chain.stop();
      await fake.stop();
    },
  };
  return svc;
}
