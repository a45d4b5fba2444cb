import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import type { ChainAggregator, Pool } from "../fakes/chain-aggregator.ts";
import { JUPITER_V6 } from "../fakes/jupiter-program.ts";
import type { LandedTx, LiteSvmRpc } from "../fakes/litesvm-rpc.ts";
import { type LiveService, startLiveService } from "./live-service.ts";

// Issue 40 item 1 through the whole service on litesvm: the on-chain minimum of the Jupiter route
// instruction in the signed message is read from its bytes and held to our floor. The aggregator
// answers /swap/v2/build (or /order) with JSON that says 300 bps while its route data says
// slippage_bps = 10 000 (a minimum of nothing): a simulation passes it (nothing is sandwiched in a
// simulation), so before issue 40 the live buy was signed and landed with no minimum on chain.
// The minimum is read here from the landed transaction's bytes, by this test's own reading of the
// route layout (quoted_out_amount and slippage_bps are the data's last 11 bytes but one).

const wallet = Keypair.generate();
const address = wallet.publicKey.toBase58();

let service: LiveService;
let chain: LiteSvmRpc;
let agg: ChainAggregator;
let pool: Pool;

async function start(env: Record<string, string> = {}) {
  service = await startLiveService(wallet, { env });
  ({ chain, agg } = service);
  agg.v1Retired = env.SWAP_API !== "v1";
  pool = agg.addPool({ lamportsPerToken: 1_000_000n, decimals: 6 }); // 0.001 SOL per token
}
afterEach(() => service.stop());

const walletTxs = () => [...chain.landed.values()].filter((t) => t.keys.static[0] === address && t.err === null);

/** The minimum the landed route instruction makes the chain enforce: quoted × (10 000 − slippage) / 10 000. */
function routeMinimum(landed: LandedTx): bigint {
  const msg = landed.tx.message;
  const ix = msg.compiledInstructions.find((i) => landed.keys.static[i.programIdIndex] === JUPITER_V6.toBase58());
  if (!ix) throw new Error("no Jupiter instruction in the landed transaction");
  const d = Buffer.from(ix.data);
  const quoted = d.readBigUInt64LE(d.length - 11);
  const slippage = BigInt(d.readUInt16LE(d.length - 3));
  return (quoted * (10_000n - slippage)) / 10_000n;
}

describe("the route's on-chain minimum is ours (issue 40 item 1)", () => {
  for (const api of ["build", "order", "v1"] as const)
    test(`SWAP_API=${api}: JSON at 300 bps, route data at slippage_bps 10 000: the buy that lands carries at least the quote's threshold in its bytes`, async () => {
      await start({ SWAP_API: api });
      const agentId = await service.agent("live");
      agg.tamper = { route: { slippageBps: 10_000 } };
      await service.signal(pool.mint);
      const [buy] = await service.records(agentId);
      // 0.1 SOL at 0.001 SOL per token: 100 tokens quoted, 97 at the agent's 300 bps.
      const threshold = 97_000_000n;
      const landed = walletTxs();
      // Signed with a minimum the chain enforces: build and v1 tighten the route's bytes; an order
      // (whose bytes /execute takes as they are) is refused and the swap built instead.
      expect(landed).toHaveLength(1);
      expect(routeMinimum(landed[0]!)).toBeGreaterThanOrEqual(threshold);
      expect(buy?.transactionType).toBe("BUY");
      if (api === "order") {
        expect(agg.v2.orderRequests.length).toBeGreaterThan(0);
        expect(agg.v2.executeRequests).toHaveLength(0);
      }
    });
});
