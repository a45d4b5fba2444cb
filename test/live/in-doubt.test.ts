import { expect, test } from "bun:test";
import { AGENT_SWAP_IN_DOUBT_MESSAGE } from "../../src/agents/agent-service.ts";
import { LiveTradeJournal } from "../../src/trading/live/journal.ts";
import { WALLET_SWAP_IN_DOUBT_MESSAGE } from "../../src/wallets/wallet-service.ts";
import { json } from "../helpers/context.ts";
import { type LiveContext, livePerTest, MINT } from "./live-context.ts";

// Nothing untracked: while a live swap of an agent or from a wallet is pending (or unknown), the
// agent cannot be deleted, and neither its live nor its simulation wallet reassigned or reset: a
// swap landing later must land on the agent and wallet it was sent for. The executor's guard is
// keyed by the wallet too, whichever agent holds it.

let l: LiveContext;
livePerTest((c) => {
  l = c;
});

test("a pending live swap: DELETE /agents/:id, wallet reassignment and reset answer 409; the guard covers the wallet for any agent", async () => {
  const agent = await l.liveAgent();
  l.rpc.landNext({ kind: "hold" });
  await l.postSignal();
  await l.settle();
  expect(l.count("live_trades", "agent_id = ? AND status = 'pending'", agent.id)).toBe(1);

  const del = await l.request("DELETE", `/api/v1/agents/${agent.id}`);
  expect(del.status).toBe(409);
  expect(await json(del)).toMatchObject({ error: AGENT_SWAP_IN_DOUBT_MESSAGE, code: "CONFLICT" });
  expect(l.count("agents", "id = ?", agent.id)).toBe(1);

  const other = l.keypairs[1]!.publicKey.toBase58();
  const assign = await l.request("POST", "/api/v1/wallets/assign", {
    agentId: agent.id,
    walletAddress: other,
    walletType: "live",
  });
  expect(assign.status).toBe(409);
  expect(await json(assign)).toMatchObject({ error: WALLET_SWAP_IN_DOUBT_MESSAGE });
  expect(l.count("agent_wallets", "agent_id = ? AND wallet_address = ?", agent.id, agent.wallet)).toBe(1);

  const wallets = await json(await l.request("GET", `/api/v1/wallets/agent/${agent.id}`));
  const sim = wallets.agentWallets.find((w: { walletType: string }) => w.walletType === "simulation").walletAddress;
  expect((await l.request("POST", `/api/v1/wallets/${sim}/reset`)).status).toBe(409);

  const journal = new LiveTradeJournal(l.ctx.database, l.ctx.clock);
  expect(journal.hasUnresolved("another-agent", MINT, agent.wallet)).toBe(true);
  expect(journal.hasUnresolved("another-agent", MINT, other)).toBe(false);
  expect(journal.countUnresolvedForAgent(agent.id)).toBe(1);
});
