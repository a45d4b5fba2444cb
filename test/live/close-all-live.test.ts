import { describe, expect, test } from "bun:test";
import { json } from "../helpers/context.ts";
import { type LiveContext, livePerTest } from "./live-context.ts";

// POST /trading/close-all over a live position (issue 41 item 6): the sale goes through the live
// close path (its own swap and floor); a sale the chain has not confirmed answers "pending" and is
// never sent twice; the simulation mode's close-all leaves live positions alone.

let l: LiveContext;
livePerTest((c) => {
  l = c;
});

describe("close-all in live mode", () => {
  test("a held sale answers pending; a second close-all sends nothing; the reconciler closes it", async () => {
    const agent = await l.liveAgent();
    await l.postSignal();
    await l.settle();
    const [pos] = await json(await l.request("GET", `/api/v1/agent-positions/${agent.id}`));
    expect((await json(await l.request("POST", "/api/v1/trading/close-all", { mode: "simulation" }))).results).toEqual(
      [],
    );

    l.rpc.landNext({ kind: "hold" });
    const res = await l.request("POST", "/api/v1/trading/close-all", { mode: "live" });
    expect(res.status).toBe(200);
    const [item] = (await json(res)).results;
    expect(item).toMatchObject({ positionId: pos.id, agentId: agent.id, tradingMode: "live", status: "pending" });
    expect(item.error).toContain("not confirmed yet");
    const sale = l.rpc.sentTransactions()[1]!;

    const again = (await json(await l.request("POST", "/api/v1/trading/close-all", { mode: "all" }))).results;
    expect(again).toMatchObject([{ positionId: pos.id, status: "pending" }]);
    expect(l.rpc.sentTransactions()).toHaveLength(2);

    l.rpc.land(sale.signature);
    expect(await l.tick()).toMatchObject({ positions: 0 });
    expect(l.count("historical_swaps", "position_id = ? AND close_reason = 'manual'", pos.id)).toBe(1);
  });
});
