import { get, query } from "./api.ts";
import { type ServiceEvent, seedFeed } from "./live.ts";
import { rememberAgents } from "./names.ts";
import type { Agent, Signal, Swap, Transaction } from "./types.ts";

// The live feed from storage: the stream replays only what the running service still holds in
// memory, so after a restart the feed would start empty. Once per session the latest signals,
// trades and closed positions are read from the API and merged into the feed as the events they
// were (same wording, same keys: a replayed or live event is not shown twice).

const N = 50;

const signalEvent = (s: Signal): ServiceEvent => ({
  id: -1,
  type: "signal.created",
  time: s.createdAt,
  data: {
    signal: {
      id: s.id,
      signalType: s.signalType,
      symbol: s.symbol,
      tokenAddress: s.tokenAddress,
      signalStrength: s.signalStrength,
    },
  },
});

function tradeEvent(agentId: string, t: Transaction): ServiceEvent {
  const buy = t.transactionType === "BUY";
  const live = !!t.transactionHash && !t.transactionHash.startsWith("sim_");
  return {
    id: -1,
    type: "trade.executed",
    time: t.transactionTime,
    data: {
      agentId,
      transactionId: t.id,
      side: buy ? "buy" : "sell",
      mode: live ? "live" : "simulation",
      tokenAddress: buy ? t.outputMint : t.inputMint,
      tokenSymbol: buy ? t.outputSymbol : t.inputSymbol,
      isDca: t.isDca,
      isTakeProfit: t.isTakeProfit,
      ...(buy ? { amountSol: t.inputAmount } : { proceedsSol: t.outputAmount }),
      hash: t.transactionHash,
    },
  };
}

const closeEvent = (agentId: string, s: Swap): ServiceEvent => ({
  id: -1,
  type: "position.closed",
  time: s.saleTime,
  data: {
    agentId,
    historicalSwapId: s.id,
    tokenAddress: s.tokenAddress,
    tokenSymbol: s.tokenSymbol,
    reason: s.closeReason,
    profitLossSol: s.profitLossSol,
  },
});

let loaded = false;

/** Reads the latest stored events once per session (again after a logout) into the feed. */
export async function loadStoredFeed(): Promise<void> {
  if (loaded) return;
  loaded = true;
  try {
    const [signals, agents] = await Promise.all([
      get<Signal[]>(`/trading-signals${query({ limit: N })}`),
      get<Agent[]>("/agents"),
    ]);
    rememberAgents(agents);
    const perAgent = await Promise.all(
      agents.map(async (a) => {
        const [txs, swaps] = await Promise.all([
          get<Transaction[]>(`/agent-transactions${query({ agentId: a.id, limit: N })}`).catch(() => []),
          get<Swap[]>(`/agent-historical-swaps${query({ agentId: a.id, limit: N })}`).catch(() => []),
        ]);
        return [
          ...txs.filter((t) => t.status !== "failed").map((t) => tradeEvent(a.id, t)),
          ...swaps.map((s) => closeEvent(a.id, s)),
        ];
      }),
    );
    seedFeed([...signals.map(signalEvent), ...perAgent.flat()]);
  } catch {
    loaded = false; // asked again on the next visit of the overview
  }
}

export function forgetStoredFeed(): void {
  loaded = false;
}
