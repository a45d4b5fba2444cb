import { SOL_MINT } from "../../src/money.ts";
import type { FakeMarket } from "../fakes/market.ts";
import { FakeSolanaPubsub } from "../fakes/solana-pubsub.ts";
import { FakeSolanaRpc } from "../fakes/solana-rpc.ts";
import { createTestContext, json, login, type TestContext } from "../helpers/context.ts";
import { MINT, MINT2, startTwoTokenMarket } from "../live/live-context.ts";

// A real service wired to the fake market and the fake Solana RPC, logged in, for copy trading:
// a watched wallet W holding 10 SOL on the fake chain, whose swaps the test lands with
// rpc.walletTrade(); the watcher is driven by tick(), the signal queue by settle().

export const W = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";

export interface CopyContext {
  fake: FakeMarket;
  rpc: FakeSolanaRpc;
  /** The pubsub node, when started with { pubsub: true } (SOLANA_WS_URL points at it). */
  pubsub: FakeSolanaPubsub | null;
  ctx: TestContext;
  token: string;
  userId: string;
  request(method: string, path: string, body?: unknown, token?: string): Promise<Response>;
  watch(body?: Record<string, unknown>, token?: string): Promise<any>;
  agent(token?: string): Promise<string>;
  /** The watched wallet buys (or sells) now, by the manual clock. */
  trade(o: {
    side?: "buy" | "sell";
    sol: number;
    mint?: string;
    tokens?: bigint;
    at?: number;
    err?: unknown;
    wrapped?: boolean;
    signers?: string[];
    route?: "swap" | "friend";
    forwardTo?: string;
    mintedBeside?: { mint: string; amount: bigint };
    version?: 0 | 1;
  }): string;
  tick(): Promise<any>;
  settle(): Promise<void>;
  signals(): any[];
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startCopy(env: Record<string, string> = {}, o: { pubsub?: boolean } = {}): Promise<CopyContext> {
  const fake = await startTwoTokenMarket();
  const rpc = new FakeSolanaRpc(fake);
  rpc.setSol(W, 10);
  const pubsub = o.pubsub ? await new FakeSolanaPubsub(rpc).start() : null;
  const ws: Record<string, string> = pubsub ? { SOLANA_WS_URL: pubsub.url } : {};
  const open = () =>
    createTestContext({ env: { ...fake.env(), ...rpc.env(), ...ws, ...env }, services: fake.serviceOptions() });
  let ctx = await open();
  const session = await login(ctx);
  const c: CopyContext = {
    fake,
    rpc,
    pubsub,
    get ctx() {
      return ctx;
    },
    token: session.token,
    userId: session.user.id,
    request: (method, path, body, token = session.token) => ctx.request(method, path, { token, body }),
    async watch(body = {}, token = session.token) {
      const res = await ctx.request("POST", "/api/v1/wallet-watches", {
        token,
        body: { address: W, label: "Whale I follow", ...body },
      });
      if (res.status !== 201) throw new Error(`watch failed: ${res.status} ${await res.text()}`);
      return json(res);
    },
    async agent(token = session.token) {
      const res = await ctx.request("POST", "/api/v1/agents", {
        token,
        body: { name: `copier-${crypto.randomUUID()}` },
      });
      const agent = await json(res);
      await ctx.request("PUT", `/api/v1/agents/${agent.id}`, { token, body: { automatedTradingSimulation: true } });
      return agent.id as string;
    },
    trade(o) {
      const lamports = BigInt(Math.round(o.sol * 1e9));
      return rpc.walletTrade(W, {
        side: o.side ?? "buy",
        mint: o.mint ?? MINT,
        lamports,
        tokens: o.tokens ?? 5_000_000_000n,
        blockTime: Math.floor((o.at ?? ctx.clock.now()) / 1000),
        err: o.err,
        wrapped: o.wrapped,
        signers: o.signers,
        route: o.route,
        forwardTo: o.forwardTo,
        mintedBeside: o.mintedBeside,
        version: o.version,
      });
    },
    tick: () => ctx.services.copyTrading.watcher.tick(),
    settle: () => ctx.services.signalQueue.idle(),
    signals: () =>
      ctx.database.sqlite
        .query("SELECT * FROM trading_signals WHERE source LIKE 'wallet:%' ORDER BY id")
        .all() as any[],
    async restart() {
      ctx = await ctx.restart();
    },
    async close() {
      await ctx.close();
      await pubsub?.stop();
      await fake.stop();
    },
  };
  return c;
}

/** `owner` buys `mint` for 1 SOL at `nowMs` (block time), landed on the fake chain: a trade to copy. */
export function landBuy(rpc: FakeSolanaRpc, owner: string, mint: string, nowMs: number): string {
  return rpc.walletTrade(owner, {
    side: "buy",
    mint,
    lamports: 1_000_000_000n,
    tokens: 1_000_000n,
    blockTime: Math.floor(nowMs / 1000),
  });
}

export { MINT, MINT2, SOL_MINT };
