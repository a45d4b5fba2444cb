import { afterEach, beforeEach, expect, test } from "bun:test";
import type { LiveIntent } from "../../src/trading/executor.ts";
import { LiveTradeJournal, sameAction } from "../../src/trading/live/journal.ts";
import { createTestContext, json, login, type TestContext } from "../helpers/context.ts";

// "An action with a pending or unknown attempt is never started again" (issue 15), on the real
// journal table: an action is the journal intent's open for signal S, DCA order k, take-profit
// level n, or close of position P. The service-level proof is test/live-chain/crash-restart.test.ts.

const MINT = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
let ctx: TestContext;
let journal: LiveTradeJournal;
let agentId: string;
let n = 0;

beforeEach(async () => {
  ctx = await createTestContext();
  const { token } = await login(ctx);
  agentId = (
    await json(await ctx.request("POST", "/api/v1/agents", { token, body: { name: "a", tradingMode: "live" } }))
  ).id;
  journal = new LiveTradeJournal(ctx.database, ctx.clock);
});
afterEach(() => ctx.close());

function sent(intent: LiveIntent): string {
  const signature = `sig${++n}`;
  journal.writeAhead(
    {
      signature,
      agentId,
      walletAddress: "W",
      tokenAddress: MINT,
      side: "BUY",
      inputAtomic: "1",
      expectedOutputAtomic: "1",
      tokenDecimals: 5,
      blockhash: "B",
      lastValidBlockHeight: 1,
      signedAtSlot: 1,
      priorityFeeLamports: 0,
    },
    intent,
  );
  return signature;
}

const dca = (order: number): LiveIntent => ({ kind: "dca", positionId: "p1", order });
const tp = (levelsHit: number): LiveIntent => ({
  kind: "take_profit",
  positionId: "p1",
  levelsHit,
  moonBagActivated: false,
  moonBagAmount: null,
  closesPosition: false,
});

test("in doubt while sending or pending, done once confirmed, free again once failed or expired", () => {
  const s = sent(dca(1));
  expect(journal.actionTaken(agentId, MINT, dca(1))).toBe("in_doubt");
  expect(journal.actionTaken(agentId, MINT, dca(2))).toBeNull(); // another order is another action
  journal.resolve(s, "confirmed");
  expect(journal.actionTaken(agentId, MINT, dca(1))).toBe("done");

  const t = sent(tp(1));
  journal.resolve(t, "expired");
  expect(journal.actionTaken(agentId, MINT, tp(1))).toBeNull(); // proven never landed: may be tried again
  const f = sent(tp(1));
  journal.resolve(f, "failed");
  expect(journal.actionTaken(agentId, MINT, tp(1))).toBeNull();
  expect(journal.actionTaken(agentId, "OtherMint1111111111111111111111111111111111", dca(1))).toBeNull();
});

test("what counts as the same action", () => {
  const open = (signalId: number): LiveIntent => ({ kind: "open", userId: "u", signalId, symbol: "X" });
  expect(sameAction(open(1), open(1))).toBe(true);
  expect(sameAction(open(1), open(2))).toBe(false);
  expect(sameAction(tp(1), tp(2))).toBe(false);
  expect(sameAction(dca(1), tp(1))).toBe(false);
  const close = (positionId: string): LiveIntent => ({ kind: "close", positionId, reason: "manual" });
  expect(sameAction(close("p1"), close("p1"))).toBe(true);
  expect(sameAction(close("p1"), close("p2"))).toBe(false);
  // A manual share of a position is keyed by its own signal: never taken for a take-profit level
  // (or the close), and two presses of the sell button are two actions.
  const part = (signalId: number): LiveIntent => ({ kind: "manual_sale", positionId: "p1", signalId, percent: "25" });
  expect(sameAction(part(7), part(7))).toBe(true);
  expect(sameAction(part(7), part(8))).toBe(false);
  expect(sameAction(part(1), tp(1))).toBe(false);
  expect(sameAction(tp(1), part(1))).toBe(false);
  expect(sameAction(part(1), close("p1"))).toBe(false);
});
