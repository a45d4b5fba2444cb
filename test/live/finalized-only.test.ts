import { describe, expect, test } from "bun:test";
import { type LiveContext, livePerTest, MINT } from "./live-context.ts";

// A node where confirmed and finalized coincide (Alpenglow, issue 40 item 5): getSignatureStatuses
// answers confirmationStatus "finalized" (confirmations null) from the first read, never
// "confirmed". Landing, failure and expiry of live trades are judged as on today's nodes, through
// the service's live path on the fake node (test/fakes/solana-rpc.ts `reportedCommitment`).

let l: LiveContext;
livePerTest((c) => {
  l = c;
  c.rpc.reportedCommitment = "finalized";
});

const statusesAnswered = async () => {
  // What the node answered: only "finalized" (the test would prove nothing otherwise).
  const sigs = l.rpc.sentTransactions().map((t) => t.signature);
  const res = await fetch(l.rpc.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSignatureStatuses", params: [sigs] }),
  });
  return ((await res.json()) as any).result.value.map((v: any) => v?.confirmationStatus ?? null);
};

/** A live buy held past the executor's polls: pending; its signature. */
async function heldBuy(): Promise<string> {
  l.rpc.landNext({ kind: "hold" });
  await l.postSignal();
  await l.settle();
  expect(l.count("live_trades", "status = 'pending'")).toBe(1);
  return l.rpc.sentTransactions()[0]!.signature;
}

describe("a node that reports only finalized", () => {
  test("a live buy lands, is recorded confirmed and opens the position; its sale closes it", async () => {
    const agent = await l.liveAgent();
    const signal = await l.postSignal();
    await l.settle();
    expect(await statusesAnswered()).toEqual(["finalized"]);
    expect(l.count("live_trades", "status = 'confirmed'")).toBe(1);
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
    expect(l.balance(agent.id, MINT)).toBe("1000");
    expect(l.evaluation(signal.id, agent.id)).toEqual({ outcome: "traded", reason: null });

    await l.postSignal({ signalType: "sell" });
    await l.settle();
    expect(await statusesAnswered()).toEqual(["finalized", "finalized"]);
    expect(l.count("live_trades", "status = 'confirmed'")).toBe(2);
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(0);
  });

  test("held past the executor's polls: pending, then reconciled as landed on the next tick", async () => {
    const agent = await l.liveAgent();
    const signature = await heldBuy();
    l.rpc.land(signature);
    await l.tick();
    expect(l.count("live_trades", "signature = ? AND status = 'confirmed'", signature)).toBe(1);
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
  });

  test("held, then landed with an error: failed, nothing else changes", async () => {
    const agent = await l.liveAgent();
    const signature = await heldBuy();
    l.rpc.failHeld(signature);
    await l.tick();
    expect(l.count("live_trades", "signature = ? AND status = 'failed'", signature)).toBe(1);
    expect(l.count("positions", "agent_id = ?", agent.id)).toBe(0);
    expect(l.balance(agent.id)).toBe("2");
  });

  test("held, then the blockhash expires: expired, and the token can trade again", async () => {
    const agent = await l.liveAgent();
    const signature = await heldBuy();
    l.rpc.expire();
    await l.tick();
    expect(l.count("live_trades", "signature = ? AND status = 'expired'", signature)).toBe(1);
    expect(l.count("positions", "agent_id = ?", agent.id)).toBe(0);
    l.rpc.blockHeight = l.fake.swap.lastValidBlockHeight - 10;
    await l.postSignal({ signalStrength: 5 });
    await l.settle();
    expect(l.count("positions", "agent_id = ? AND status = 'open'", agent.id)).toBe(1);
  });
});
