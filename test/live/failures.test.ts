import { describe, expect, test } from "bun:test";
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { STORAGE_ERROR_MESSAGE } from "../../src/errors.ts";
import { json } from "../helpers/context.ts";
import { type LiveContext, livePerTest, MINT } from "./live-context.ts";

// Failed live trades (SPEC "Facts about trading behaviour": a failed trade creates no position,
// leaves the balance unchanged, and is logged; issue: live trading "an error or expiry before
// sending → failed trade"). Each test checks the same "nothing changed" picture: no position, no
// transaction, no trade key, the recorded balance and the chain's untouched (or, for a swap that
// landed and failed, only the chain's fee gone), and a "trade failed" line naming the reason.

let l: LiveContext;
const live = livePerTest((c) => {
  l = c;
});

function nothingChanged(agentId: string, opts: { chainLamports?: bigint; journal?: number } = {}) {
  expect(l.count("positions", "agent_id = ?", agentId)).toBe(0);
  expect(l.count("agent_transactions", "agent_id = ?", agentId)).toBe(0);
  expect(l.count("trade_idempotency", "agent_id = ?", agentId)).toBe(0);
  expect(l.balance(agentId)).toBe("2");
  expect(l.balance(agentId, MINT)).toBe("none");
  expect(l.rpc.lamportsOf(l.wallet)).toBe(opts.chainLamports ?? 2_000_000_000n);
  expect(l.rpc.tokenOf(l.wallet, MINT)).toBe(0n);
  expect(l.count("live_trades")).toBe(opts.journal ?? 0);
}

function failedLine(agentId: string) {
  const line = l.logLines().find((x) => x.msg === "trade failed");
  expect(line).toMatchObject({ agentId, tokenAddress: MINT, side: "buy", mode: "live" });
  return line!;
}

/** The signing operation, counted (an instance spy, not a module mock). */
function countSigns(): { n: number } {
  const counter = { n: 0 };
  const original = l.registry.signTransaction.bind(l.registry);
  l.registry.signTransaction = ((address: string, tx: VersionedTransaction) => {
    counter.n++;
    return original(address, tx);
  }) as typeof l.registry.signTransaction;
  return counter;
}

/** A swap answer built like the aggregator's, around instructions of the test's choosing. */
function swapAnswer(payer: PublicKey, extraSigner?: PublicKey) {
  const instructions = [SystemProgram.transfer({ fromPubkey: payer, toPubkey: payer, lamports: 0 })];
  if (extraSigner) instructions.push(SystemProgram.transfer({ fromPubkey: extraSigner, toPubkey: payer, lamports: 1 }));
  const message = new TransactionMessage({
    payerKey: payer,
    recentBlockhash: l.fake.swap.blockhash,
    instructions,
  }).compileToV0Message();
  return {
    swapTransaction: Buffer.from(new VersionedTransaction(message).serialize()).toString("base64"),
    lastValidBlockHeight: l.fake.swap.lastValidBlockHeight,
    prioritizationFeeLamports: 0,
  };
}

describe("refused before anything is sent", () => {
  test("aggregator 502 on the swap transaction: nothing changes, logged naming the source", async () => {
    const agent = await l.liveAgent();
    l.fake.inject(
      "jupiter.swap",
      { status: 502, body: { error: "bad gateway" } },
      { status: 502, body: { error: "bad gateway" } },
      { status: 502, body: { error: "bad gateway" } },
    );
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id);
    expect(failedLine(agent.id).reason).toBe("swapAggregator returned HTTP 502: bad gateway");
    expect(l.rpc.callsOf("sendTransaction").length).toBe(0);
    // The next signal trades normally.
    await l.postSignal({ signalStrength: 5 });
    await l.settle();
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
  });

  test("aggregator 502 on the quote: nothing changes", async () => {
    const agent = await l.liveAgent();
    l.fake.inject("jupiter.quote", { status: 502 }, { status: 502 }, { status: 502 });
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id);
    expect(failedLine(agent.id).reason).toBe("swapAggregator returned HTTP 502");
    expect(l.fake.requestsTo("jupiter.swap").length).toBe(0);
  });

  test("a JSON-RPC error on sendTransaction is 'maybe sent': the row is kept, the same bytes go again, one buy", async () => {
    // Issue 15 (deliberate change): a node's error answer does not prove the transaction never
    // left; the journal row stays and the same signed bytes are rebroadcast until settled.
    const agent = await l.liveAgent();
    l.rpc.failNext("sendTransaction", { code: -32002, message: "Transaction simulation failed: Blockhash not found" });
    await l.postSignal();
    await l.settle();
    const sends = l.rpc.callsOf("sendTransaction").map((p) => p[0]);
    expect(sends.length).toBe(2);
    expect(sends[1]).toBe(sends[0]);
    expect(l.rpc.sentTransactions().length).toBe(1);
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
    expect(l.count("live_trades", "status = 'confirmed'")).toBe(1);
    expect(l.logLines().some((x) => x.msg === "send errored; the transaction may have been sent")).toBe(true);
  });

  test("the RPC fails the simulation call: nothing is sent", async () => {
    const agent = await l.liveAgent();
    l.rpc.failNext("simulateTransaction", { status: 503, body: "unavailable" });
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id);
    expect(failedLine(agent.id).reason).toBe("solanaRpc returned HTTP 503 to simulateTransaction");
    expect(l.rpc.callsOf("sendTransaction").length).toBe(0);
  });

  test("a simulation that reports an error: nothing is sent", async () => {
    const agent = await l.liveAgent();
    l.rpc.nextSimulationError = { InstructionError: [2, { Custom: 6001 }] };
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id);
    expect(failedLine(agent.id)).toMatchObject({
      reason: 'Swap refused before signing: the swap would fail on chain ({"InstructionError":[2,{"Custom":6001}]})',
      details: { check: "simulation" },
    });
    expect(l.rpc.callsOf("sendTransaction").length).toBe(0);
  });

  test("LIVE_SIMULATE_BEFORE_SEND=false: only the inspection's (unsigned) simulation runs", async () => {
    await live.restart({ env: { LIVE_SIMULATE_BEFORE_SEND: "false" } });
    await l.liveAgent();
    await l.postSignal();
    await l.settle();
    const sims = l.rpc.callsOf("simulateTransaction");
    expect(sims.length).toBe(1);
    expect(sims[0]![1]).toMatchObject({ sigVerify: false });
    expect((l.rpc.callsOf("sendTransaction")[0]![1] as { skipPreflight: boolean }).skipPreflight).toBe(true);
    expect(l.count("positions", "status = 'open'")).toBe(1);
  });

  test("a transaction whose fee payer is not the wallet is refused before signing", async () => {
    const agent = await l.liveAgent();
    const signs = countSigns();
    l.fake.inject("jupiter.swap", { body: swapAnswer(Keypair.generate().publicKey) });
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id);
    expect(signs.n).toBe(0);
    const line = failedLine(agent.id);
    expect(line.reason).toBe("Swap refused before signing: The swap's fee payer is not the agent's wallet");
    expect(line.details.check).toBe("signers");
    expect(l.rpc.callsOf("simulateTransaction").length + l.rpc.callsOf("sendTransaction").length).toBe(0);
    // The aggregator's normal answer is signed.
    await l.postSignal({ signalStrength: 5 });
    await l.settle();
    expect(signs.n).toBe(1);
  });

  test("a transaction that needs another signer besides the wallet is refused before signing", async () => {
    const agent = await l.liveAgent();
    const signs = countSigns();
    const stranger = Keypair.generate().publicKey;
    l.fake.inject("jupiter.swap", { body: swapAnswer(new PublicKey(l.wallet), stranger) });
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id);
    expect(signs.n).toBe(0);
    const line = failedLine(agent.id);
    expect(line.reason).toBe(
      "Swap refused before signing: The swap must be signed by the wallet alone; it asks for 2 signatures",
    );
    expect(line.details.check).toBe("signers");
    expect(l.rpc.callsOf("simulateTransaction").length + l.rpc.callsOf("sendTransaction").length).toBe(0);
  });

  test("an unreadable swap transaction is refused", async () => {
    const agent = await l.liveAgent();
    l.fake.inject("jupiter.swap", { body: { swapTransaction: "bm90IGEgdHJhbnNhY3Rpb24=", lastValidBlockHeight: 1 } });
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id);
    expect(failedLine(agent.id).reason).toBe(
      "swapAggregator returned an unexpected response: swap transaction is not a valid serialized transaction",
    );
  });
});

describe("sent, then failed or expired while confirming", () => {
  test("landed with an error: a failed trade; only the chain's fee is gone; the journal says failed", async () => {
    const agent = await l.liveAgent();
    l.rpc.landNext({ kind: "fail" });
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id, { chainLamports: 2_000_000_000n - 55_000n, journal: 1 });
    expect(failedLine(agent.id)).toMatchObject({ reason: "The swap transaction failed on chain" });
    expect(l.count("live_trades", "status = 'failed'")).toBe(1);
  });

  test("the blockhash expires before confirmation: a failed trade, nothing changed", async () => {
    const agent = await l.liveAgent();
    l.rpc.landNext({ kind: "hold" });
    l.rpc.blockHeight = l.fake.swap.lastValidBlockHeight - 1;
    l.rpc.heightStep = 1;
    await l.postSignal();
    await l.settle();
    nothingChanged(agent.id, { journal: 1 });
    expect(failedLine(agent.id).reason).toBe(
      "The swap transaction expired before it was confirmed (blockhash expired); nothing changed",
    );
    expect(l.count("live_trades", "status = 'expired'")).toBe(1);
    // Rebroadcast (issue 15): the same signed bytes, until the height passed the blockhash's life.
    const sends = l.rpc.callsOf("sendTransaction").map((p) => p[0]);
    expect(sends.length).toBeGreaterThanOrEqual(1);
    expect(new Set(sends).size).toBe(1);
    expect(l.rpc.sentTransactions().length).toBe(1);
  });

  test("the slippage the agent set is what every attempt asks for; a retry never loosens it", async () => {
    const agent = await l.liveAgent({ config: { slippage: { defaultBps: 75, maxBps: 100 } } });
    l.fake.inject("jupiter.swap", { status: 502 }, { status: 502 }, { status: 502 });
    await l.postSignal();
    await l.settle();
    await l.postSignal({ signalStrength: 5 });
    await l.settle();
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
    const asked = l.fake.requestsTo("jupiter.quote").map((r) => r.query.get("slippageBps"));
    // Two buy quotes and the screening's reverse quote (issue 15), all at the agent's slippage.
    expect(asked).toEqual(["75", "75", "75"]);
    const sent = l.fake
      .requestsTo("jupiter.swap")
      .map((r) => (r.body as { quoteResponse: { slippageBps: number } }).quoteResponse.slippageBps);
    expect(new Set(sent)).toEqual(new Set([75]));
  });
});

describe("storage errors never reach a response (issue 15)", () => {
  test("a live close whose journal write fails answers 500 without the storage text; events and logs say no more", async () => {
    const agent = await l.liveAgent();
    await l.postSignal();
    await l.settle();
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    // A real SQLite error on the journal's insert, with the text a reviewer saw in a 502 body.
    l.ctx.database.sqlite.run(
      "CREATE TRIGGER fail_journal BEFORE INSERT ON live_trades BEGIN SELECT RAISE(ABORT, 'UNIQUE constraint failed: live_trades.signature'); END",
    );
    const res = await l.request("POST", `/api/v1/agent-positions/${agent.id}/${pos.id}/close`);
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ success: false, error: "Internal server error", code: "INTERNAL_ERROR" });
    expect(text).not.toContain("constraint");
    expect(text).not.toContain("live_trades");
    // Nothing was sent: the journal write comes before any send.
    expect(l.rpc.sentTransactions().length).toBe(1);
    expect(l.count("positions", "id = ? AND status = 'open'", pos.id)).toBe(1);
    const failed = l.logLines().find((x) => x.msg === "trade failed" && x.side === "sell");
    expect(failed).toMatchObject({ reason: STORAGE_ERROR_MESSAGE });
    expect(failed!.storageError).toContain("UNIQUE constraint failed");
  });
});
