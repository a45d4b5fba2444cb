import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { ManualClock } from "../../src/clock.ts";
import { createLogger } from "../../src/logger.ts";
import { MintInfoSource } from "../../src/market/mint-info.ts";
import { TOKEN_SCREENING_DEFAULTS } from "../../src/trading/rules/token-screening.ts";
import { TokenScreen } from "../../src/trading/token-screen.ts";
import type { ChainAggregator, PoolOptions } from "../fakes/chain-aggregator.ts";
import type { LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { json, type TestContext } from "../helpers/context.ts";
import { type ChainContext, startChain } from "./chain-context.ts";
import { type LiveService, liveServicePerTest } from "./live-service.ts";

// Token-2022 extensions that let a third party move, freeze or block the bought tokens are refused
// by default (docs/decisions/token-2022-screening.md), each by its own named filter, on a real
// Token-2022 program (litesvm): the mint account is read over RPC and parsed here.

const quiet = createLogger({ level: "error", write: () => {} });
const hook = Keypair.generate().publicKey;

const dangerous: Array<[string, Partial<PoolOptions>, string]> = [
  ["PermanentDelegate", { permanentDelegate: true }, "rejectPermanentDelegate"],
  ["Pausable", { pausable: true }, "rejectPausable"],
  ["TransferHook", { transferHook: { program: hook } }, "rejectTransferHook"],
  // Its freeze authority would be refused first by default: relaxed here, the frozen default still is.
  ["DefaultAccountState frozen", { defaultFrozen: true }, "rejectDefaultFrozen"],
];

describe("TokenScreen on a real Token-2022 mint", () => {
  let c: ChainContext;
  const screenOf = (allow: string[] = []) =>
    new TokenScreen({
      mintInfo: new MintInfoSource({ rpc: c.rpc, clock: new ManualClock(), ttlMs: 60_000 }),
      quotes: c.swaps,
      logger: quiet,
      clock: new ManualClock(),
      transferHookAllowlist: allow,
    });
  beforeEach(async () => {
    c = await startChain();
  });
  afterEach(() => c.close());

  test.each(dangerous)("%s is refused with default filters, naming its filter", async (_n, opts, rule) => {
    const pool = c.aggregator.addPool({ lamportsPerToken: 1_000n, token2022: true, ...opts });
    const filters = { ...TOKEN_SCREENING_DEFAULTS, rejectFreezeAuthority: false };
    const err = await screenOf()
      .check(pool.mint.toBase58(), 1_000_000n, filters, 100)
      .catch((e) => e);
    expect(err?.rule).toBe(rule);
    expect(err.message).toStartWith(`${rule}: `);
  });

  test.each(dangerous)("%s is bought once its filter is relaxed", async (_n, opts, rule) => {
    const pool = c.aggregator.addPool({ lamportsPerToken: 1_000n, token2022: true, ...opts });
    const filters = { ...TOKEN_SCREENING_DEFAULTS, rejectFreezeAuthority: false, [rule]: false };
    await screenOf().check(pool.mint.toBase58(), 1_000_000n, filters, 100);
  });

  test("a transfer hook whose program is on TOKEN_TRANSFER_HOOK_ALLOWLIST passes; a hook authority without a program passes", async () => {
    const hooked = c.aggregator.addPool({ lamportsPerToken: 1_000n, token2022: true, transferHook: { program: hook } });
    await screenOf([hook.toBase58()]).check(hooked.mint.toBase58(), 1_000_000n, TOKEN_SCREENING_DEFAULTS, 100);
    const unset = c.aggregator.addPool({ lamportsPerToken: 1_000n, token2022: true, transferHook: { program: null } });
    await screenOf().check(unset.mint.toBase58(), 1_000_000n, TOKEN_SCREENING_DEFAULTS, 100);
  });
});

// Through the service over HTTP: a PermanentDelegate mint is refused for a live agent and for a
// simulated one alike (simulation is never kinder than live): nothing signed, no position.
let service: LiveService;
let chain: LiteSvmRpc;
let agg: ChainAggregator;
let ctx: TestContext;
const wallet = Keypair.generate();

describe("the service refuses a PermanentDelegate mint", () => {
  liveServicePerTest(wallet, (s) => {
    service = s;
    ({ chain, agg, ctx } = s);
  });

  test.each(["live", "simulation"] as const)(
    "%s agent: refused in processing, nothing signed, no position",
    async (mode) => {
      const pool = agg.addPool({ lamportsPerToken: 1_000_000n, token2022: true, permanentDelegate: true });
      const agentId = await service.agent(mode);
      const sentBefore = chain.calls.filter((x) => x.method === "sendTransaction").length;
      const id = await service.signal(pool.mint);
      const s = await json(await ctx.request("GET", `/api/v1/trading-signals/${id}`, { token: service.token }));
      const mine = s.processing.evaluations.find((e: { agentId: string }) => e.agentId === agentId);
      expect(mine.outcome).toBe("failed");
      expect(mine.reason).toStartWith("rejectPermanentDelegate: ");
      expect(mine.positionId).toBeNull();
      expect(chain.calls.filter((x) => x.method === "sendTransaction").length).toBe(sentBefore);
      const positions = await json(
        await ctx.request("GET", `/api/v1/agent-positions/${agentId}`, { token: service.token }),
      );
      expect(positions).toEqual([]);
      expect(await service.records(agentId)).toEqual([]);
    },
  );
});
