import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import type { Pool } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { type RpcProxy, startRpcProxy } from "../fakes/rpc-proxy.ts";
import { login, type TestContext } from "../helpers/context.ts";
import { ChainClock, type LiveService, startLiveService } from "./live-service.ts";

// SOLANA_CONFIRM_RPC_URL (docs/decisions/live-send-guards.md): a proof that a sent swap expired
// needs both nodes to agree. Two nodes in front of the same litesvm chain; SOLANA_RPC_URL's one
// lies the way that turns a landed swap into a "proven" expiry (every status null, history from
// block 0). With the second node a landed buy is recorded, and a landed exit is not sent again;
// with one node alone the lie is believed (what README "Going live" says that node is trusted with).

const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();
let service: LiveService;
let chain: LiteSvmRpc;
let ctx: TestContext;
let pool: Pool;
let clock: ChainClock;
let liar: RpcProxy;
let honest: RpcProxy;

async function start(withConfirmNode: boolean) {
  liar = await startRpcProxy();
  honest = await startRpcProxy();
  clock = new ChainClock();
  service = await startLiveService(wallet, {
    clock,
    env: withConfirmNode ? { SOLANA_CONFIRM_RPC_URL: honest.url } : {},
    via: (upstream, url) => {
      if (upstream !== "rpc") return url;
      liar.upstream = url;
      honest.upstream = url;
      return liar.url;
    },
  });
  ({ chain, ctx } = service);
  pool = service.agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 });
}
afterEach(async () => {
  await service.stop();
  await liar.stop();
  await honest.stop();
});

const journal = () =>
  ctx.database.sqlite
    .query<{ signature: string; side: string; status: string }, []>(
      "SELECT signature, side, status FROM live_trades ORDER BY rowid",
    )
    .all();
const walletTxs = () => [...chain.landed.values()].filter((t) => t.keys.static[0] === address);
const openPositions = (agentId: string) =>
  ctx.database.sqlite
    .query<{ n: number }, [string]>("SELECT count(*) AS n FROM positions WHERE agent_id = ? AND status = 'open'")
    .get(agentId)!.n;

/** A buy whose confirmation the primary node denies while the chain moves past its blockhash. */
async function buyBehindTheLie(): Promise<string> {
  const agentId = await service.agent("live");
  liar.lying = true;
  clock.onSleep = () => chain.advance(40); // 5 polls: 200 blocks, past the blockhash's 150
  await service.signal(pool.mint);
  clock.onSleep = null;
  return agentId;
}

describe("SOLANA_CONFIRM_RPC_URL: expiry needs both nodes", () => {
  test("a landed buy the primary node denies is not called expired: the second node saw it land; the position holds the tokens", async () => {
    await start(true);
    const agentId = await buyBehindTheLie();
    expect(liar.lies).toContain("getSignatureStatuses");
    expect(walletTxs()).toHaveLength(1);
    expect(journal().map((r) => r.status)).not.toContain("expired");
    expect(journal()).toHaveLength(1);
    liar.lying = false;
    await ctx.services.trading.monitor.tick();
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
    expect(openPositions(agentId)).toBe(1);
  });

  test("a stale exit that landed while the primary node denies it is not sent again", async () => {
    await start(true);
    const agentId = await service.agent("live", { filters: { maxPositionAgeDays: 1 } });
    await service.signal(pool.mint);
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
    ctx.clock.advance(2 * 86_400_000); // the position is stale
    liar.lying = true;
    clock.onSleep = () => chain.advance(40);
    await ctx.services.trading.monitor.tick();
    clock.onSleep = null;
    const sales = journal().filter((r) => r.side === "SELL");
    expect(sales).toHaveLength(1);
    expect(sales[0]!.status).not.toBe("expired");
    expect(walletTxs().filter((t) => t.signature === sales[0]!.signature)).toHaveLength(1);
    liar.lying = false;
    await ctx.services.trading.monitor.tick();
    await ctx.services.trading.live!.closer.idle();
    expect(
      journal()
        .filter((r) => r.side === "SELL")
        .map((r) => r.status),
    ).toEqual(["confirmed"]);
    expect(openPositions(agentId)).toBe(0);
    service.token = (await login(ctx)).token;
  });

  test("a buy that never landed is expired when both nodes prove it; each node's proof was read", async () => {
    await start(true);
    const agentId = await service.agent("live");
    for (let i = 0; i < 20; i++) chain.sendModes.push({ kind: "drop" });
    clock.onSleep = () => chain.advance(40);
    await service.signal(pool.mint);
    clock.onSleep = null;
    expect(walletTxs()).toHaveLength(0);
    expect(journal().map((r) => r.status)).toEqual(["expired"]);
    expect(openPositions(agentId)).toBe(0);
    // The second node was asked for its own height, status, blockhash and history.
    const asked = honest.calls;
    for (const m of ["getEpochInfo", "getSignatureStatuses", "isBlockhashValid", "getFirstAvailableBlock"])
      expect(asked).toContain(m);
  });

  test("with one node alone the lie is believed: the landed buy is called expired (README: what that node is trusted with)", async () => {
    await start(false);
    const agentId = await buyBehindTheLie();
    expect(walletTxs()).toHaveLength(1);
    expect(journal().map((r) => r.status)).toEqual(["expired"]);
    expect(openPositions(agentId)).toBe(0);
  });
});

describe("a chain whose nodes report only finalized (Alpenglow, issue 40 item 5)", () => {
  test("a landed buy and its stale exit are recorded confirmed", async () => {
    await start(true);
    chain.finalizedOnly = true;
    const agentId = await service.agent("live", { filters: { maxPositionAgeDays: 1 } });
    await service.signal(pool.mint);
    expect(journal().map((r) => r.status)).toEqual(["confirmed"]);
    expect(openPositions(agentId)).toBe(1);
    ctx.clock.advance(2 * 86_400_000); // the position is stale
    await ctx.services.trading.monitor.tick();
    await ctx.services.trading.live!.closer.idle();
    expect(journal().map((r) => [r.side, r.status])).toEqual([
      ["BUY", "confirmed"],
      ["SELL", "confirmed"],
    ]);
    expect(openPositions(agentId)).toBe(0);
    service.token = (await login(ctx)).token;
  });

  test("a buy that never landed is proven expired by both nodes", async () => {
    await start(true);
    chain.finalizedOnly = true;
    const agentId = await service.agent("live");
    for (let i = 0; i < 20; i++) chain.sendModes.push({ kind: "drop" });
    clock.onSleep = () => chain.advance(40);
    await service.signal(pool.mint);
    clock.onSleep = null;
    expect(journal().map((r) => r.status)).toEqual(["expired"]);
    expect(openPositions(agentId)).toBe(0);
  });
});
