import type { AgentService } from "../agents/agent-service.ts";
import type { PositionRecord, PositionRepository } from "../db/repositories/positions.ts";
import { ConflictError, LiveTradePendingError, NotFoundError, publicErrorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { GuardRails } from "./guard-rails.ts";
import type { TradingEngine } from "./trading-engine.ts";

// "Get out at once" (issue 41 item 6, docs/decisions/close-all-and-sources.md): every open
// position of the owner in a mode (or of one agent) is closed through the one close every manual
// close takes (TradingEngine.closePosition, closeReason manual: the position's lock, its exit
// floor, its fee rules), and each position answers for itself. With `pause`, entries stop first
// (the mode's pause switch; for one agent, its automation in the mode), so nothing new opens while
// the old ones are sold. Positions of one wallet are sold one after the other (a live wallet signs
// one swap at a time and each sale reads the balance the previous left); wallets go side by side.

export type CloseAllMode = "simulation" | "live" | "all";

export interface CloseAllRequest {
  mode: CloseAllMode;
  agentId?: string;
  pause?: boolean;
}

/** closed: sold; pending: a live sale was sent and awaits the chain; already_closed: another exit sold it first. */
type CloseAllStatus = "closed" | "pending" | "already_closed" | "failed";

interface CloseAllItem {
  positionId: string;
  agentId: string;
  tokenAddress: string;
  tokenSymbol: string;
  tradingMode: "simulation" | "live";
  status: CloseAllStatus;
  /** Why it failed or is pending; null when closed. */
  error: string | null;
  transactionId: string | null;
  profitLossSol: number | null;
}

export interface CloseAllAnswer {
  mode: CloseAllMode;
  agentId: string | null;
  paused: boolean;
  results: CloseAllItem[];
}

export interface CloseAllDeps {
  positions: Pick<PositionRepository, "openForAgents">;
  engine: Pick<TradingEngine, "closePosition">;
  agents: Pick<AgentService, "agentIdsOf" | "get" | "update">;
  guardRails: Pick<GuardRails, "pause">;
  logger: Logger;
}

const inMode = (mode: CloseAllMode) => (p: PositionRecord) => mode === "all" || p.tradingMode === mode;

/** What the audit log keeps of a close-all, asked through the API or Telegram alike. */
export function closeAllDetails(req: CloseAllRequest, answer: CloseAllAnswer) {
  const count = (status: CloseAllItem["status"]) => answer.results.filter((r) => r.status === status).length;
  return {
    mode: req.mode,
    pause: req.pause ?? false,
    positions: answer.results.length,
    closed: count("closed"),
    failed: count("failed"),
  };
}

/** The positions close-all would close now (the confirmation's count); a foreign agentId is 404. */
export function positionsToClose(d: CloseAllDeps, userId: string, req: Omit<CloseAllRequest, "pause">) {
  const agentIds = req.agentId ? [d.agents.get(userId, req.agentId).id] : d.agents.agentIdsOf(userId);
  return d.positions.openForAgents(agentIds).filter(inMode(req.mode));
}

export async function closeAllPositions(
  d: CloseAllDeps,
  userId: string,
  req: CloseAllRequest,
): Promise<CloseAllAnswer> {
  const before = positionsToClose(d, userId, req); // the ownership check, before anything changes
  if (req.pause) pauseEntries(d, userId, req);
  // Read again after the pause: an entry that landed before it is closed too.
  const open = req.pause ? positionsToClose(d, userId, req) : before;
  const byWallet = new Map<string, PositionRecord[]>();
  for (const p of open) byWallet.set(p.walletAddress, [...(byWallet.get(p.walletAddress) ?? []), p]);
  const done = new Map<string, CloseAllItem>();
  await Promise.all(
    [...byWallet.values()].map(async (ps) => {
      for (const p of ps) done.set(p.id, await closeOne(d, userId, p));
    }),
  );
  const results = open.map((p) => done.get(p.id)!);
  d.logger.info("close-all", {
    userId,
    mode: req.mode,
    agentId: req.agentId ?? null,
    paused: req.pause === true,
    positions: results.length,
    closed: results.filter((r) => r.status === "closed").length,
  });
  return { mode: req.mode, agentId: req.agentId ?? null, paused: req.pause === true, results };
}

/** The mode's pause switch; for one agent, its automation in the mode (the owner's other agents go on). */
function pauseEntries(d: CloseAllDeps, userId: string, req: CloseAllRequest): void {
  if (!req.agentId) {
    d.guardRails.pause(userId, req.mode);
    return;
  }
  d.agents.update(userId, req.agentId, {
    ...(req.mode !== "live" ? { automatedTradingSimulation: false } : {}),
    ...(req.mode !== "simulation" ? { automatedTradingLive: false } : {}),
  });
}

async function closeOne(d: CloseAllDeps, userId: string, p: PositionRecord): Promise<CloseAllItem> {
  const base = {
    positionId: p.id,
    agentId: p.agentId,
    tokenAddress: p.tokenAddress,
    tokenSymbol: p.tokenSymbol,
    tradingMode: p.tradingMode,
  };
  try {
    const r = await d.engine.closePosition(p.id, "manual", { userId, agentId: p.agentId });
    return { ...base, status: "closed", error: null, transactionId: r.transactionId, profitLossSol: r.profitLossSol };
  } catch (err) {
    const error = publicErrorMessage(err);
    // A live sale sent and not yet confirmed (now or by an earlier attempt): the chain decides.
    const pending = err instanceof LiveTradePendingError || err instanceof ConflictError;
    const status: CloseAllStatus = pending ? "pending" : err instanceof NotFoundError ? "already_closed" : "failed";
    if (status === "failed") d.logger.warn("close-all: a position did not close", { positionId: p.id, error });
    return { ...base, status, error, transactionId: null, profitLossSol: null };
  }
}
