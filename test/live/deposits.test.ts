import { describe, expect, test } from "bun:test";
import { TOKEN_2022_PROGRAM } from "../fakes/solana-rpc.ts";
import { json } from "../helpers/context.ts";
import { type LiveContext, livePerTest, MINT, MINT2 } from "./live-context.ts";

// POST /wallets/:walletAddress/check-deposits for live wallets (SPEC "Wallet endpoints"): the
// chain's balances (getBalance; getTokenAccountsByOwner jsonParsed over both token programs)
// against the recorded ones; every balance that grew is a deposit; all are mirrored; a balance
// snapshot with reason "deposit" is recorded when any was found.

let l: LiveContext;
const live = livePerTest((c) => {
  l = c;
});

async function newLiveAgent() {
  const created = await l.request("POST", "/api/v1/agents", { name: "deposits", tradingMode: "live" });
  const agent = await json(created);
  expect(
    (
      await l.request("POST", "/api/v1/wallets/assign", {
        agentId: agent.id,
        walletAddress: l.wallet,
        walletType: "live",
      })
    ).status,
  ).toBe(201);
  return agent.id as string;
}
const check = () => l.request("POST", `/api/v1/wallets/${l.wallet}/check-deposits`);
const snapshots = (agentId: string) =>
  l.ctx.database.sqlite
    .query<{ sol_balance: string; reason: string; total_value_sol: string; total_value_usd: string | null }, [string]>(
      "SELECT sol_balance, reason, total_value_sol, total_value_usd FROM balance_snapshots WHERE agent_id = ? AND reason = 'deposit' ORDER BY created_at, rowid",
    )
    .all(agentId);

describe("live deposit checks", () => {
  test("first check mirrors the chain; later checks count what grew; withdrawals are mirrored, not counted", async () => {
    const agentId = await newLiveAgent();
    expect(l.balance(agentId)).toBe("none");

    let res = await check();
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, depositsFound: 1, newBalance: "2" });
    expect(l.balance(agentId)).toBe("2");
    expect(snapshots(agentId)).toEqual([
      { sol_balance: "2", reason: "deposit", total_value_sol: "2", total_value_usd: null },
    ]);

    res = await check();
    expect(await json(res)).toEqual({ success: true, depositsFound: 0, newBalance: "2" });
    expect(snapshots(agentId).length).toBe(1);

    // 0.5 SOL more, and 5 WIF held through the Token-2022 program.
    l.rpc.setSol(l.wallet, "2.5");
    l.rpc.tokenProgram.set(MINT2, TOKEN_2022_PROGRAM);
    l.rpc.setTokenBalance(l.wallet, MINT2, 5_000_000n);
    res = await check();
    expect(await json(res)).toEqual({ success: true, depositsFound: 2, newBalance: "2.5" });
    expect(l.balance(agentId, MINT2)).toBe("5");
    // Both token programs were asked, jsonParsed.
    const programs = l.rpc.callsOf("getTokenAccountsByOwner").map((p) => (p[1] as { programId: string }).programId);
    expect(new Set(programs)).toEqual(new Set(["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", TOKEN_2022_PROGRAM]));
    expect(
      l.rpc.callsOf("getTokenAccountsByOwner").every((p) => (p[2] as { encoding: string }).encoding === "jsonParsed"),
    ).toBe(true);

    // A withdrawal: mirrored, no deposit, no snapshot.
    l.rpc.setSol(l.wallet, "1.25");
    l.rpc.setTokenBalance(l.wallet, MINT2, 0n);
    res = await check();
    expect(await json(res)).toEqual({ success: true, depositsFound: 0, newBalance: "1.25" });
    expect(l.balance(agentId)).toBe("1.25");
    expect(l.balance(agentId, MINT2)).toBe("0");
    expect(snapshots(agentId).length).toBe(2);
    expect(
      l
        .logLines()
        .filter((x) => x.msg === "live wallet balances checked")
        .at(-1),
    ).toMatchObject({
      agentId,
      walletAddress: l.wallet,
      depositsFound: 0,
      withdrawals: [
        { tokenAddress: "So11111111111111111111111111111111111111112", before: "2.5", after: "1.25" },
        { tokenAddress: MINT2, before: "5", after: "0" },
      ],
    });
  });

  test("an RPC failure is a 502 naming the source; nothing is recorded", async () => {
    const agentId = await newLiveAgent();
    l.rpc.failNext("getBalance", { status: 503, body: "down" });
    const res = await check();
    expect(res.status).toBe(502);
    expect(await json(res)).toEqual({
      success: false,
      error: "solanaRpc returned HTTP 503 to getBalance",
      code: "EXTERNAL_SERVICE_ERROR",
      details: { service: "solanaRpc", statusCode: 503 },
    });
    expect(l.balance(agentId)).toBe("none");
    expect(snapshots(agentId)).toEqual([]);
  });

  test("while a live trade of the wallet is in doubt: 409, nothing counted as a deposit", async () => {
    const agent = await l.liveAgent();
    l.rpc.landNext({ kind: "hold" });
    await l.postSignal();
    await l.settle();
    l.rpc.land(l.rpc.sentTransactions()[0]!.signature);
    const res = await check();
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({
      success: false,
      error: "A live trade of this wallet is awaiting confirmation; check deposits again once it is reconciled",
      code: "CONFLICT",
    });
    await l.tick();
    expect(await json(await check())).toEqual({ success: true, depositsFound: 0, newBalance: "1.899945" });
    expect(l.balance(agent.id, MINT)).toBe("1000");
  });

  test("without SOLANA_RPC_URL a live deposit check is 503 naming the variable", async () => {
    await live.restart({ env: { SOLANA_RPC_URL: "" } });
    await newLiveAgent();
    const res = await check();
    expect(res.status).toBe(503);
    expect(await json(res)).toEqual({
      success: false,
      error: "Deposit checks for live wallets need the Solana RPC: set SOLANA_RPC_URL",
      code: "SERVICE_NOT_CONFIGURED",
    });
  });
});
