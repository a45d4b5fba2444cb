import type { Clock } from "../clock.ts";
import type {
  BacktestRepository,
  BacktestRow,
  BacktestStatus,
  BacktestTradeRow,
} from "../db/repositories/backtests.ts";
import type { LabSignal, StrategyLabSignalRepository } from "../db/repositories/strategy-lab-signals.ts";
import { NotFoundError } from "../errors.ts";
import { type BacktestRequest, resolveVariants, type SignalSelection } from "./request.ts";
import type { EquityPoint, VariantSummary } from "./types.ts";

// Backtests as the API shows them: created queued (202), run by the worker
// (src/backtest/backtest-worker.ts), read, listed and deleted by their owner only — another
// user's id is 404.

export interface BacktestView {
  id: string;
  name: string;
  status: BacktestStatus;
  progress: number;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  initialSol: number;
  variants: Array<{ name: string } & Partial<VariantSummary> & { equity?: EquityPoint[] }>;
}

export interface BacktestTradeView {
  variant: string;
  signalId: number;
  tokenAddress: string;
  openedAt: string;
  closedAt: string;
  entryPriceSol: string;
  exitPriceSol: string | null;
  amount: string;
  costSol: string;
  profitLossSol: string;
  changePercent: string;
  closeReason: string;
  takeProfitLevels: number;
  dcaOrders: number;
}

export class BacktestService {
  constructor(
    private readonly repo: BacktestRepository,
    private readonly signals: StrategyLabSignalRepository,
    private readonly clock: Clock,
    private readonly onCreated: () => void = () => {},
  ) {}

  create(userId: string, req: BacktestRequest): { id: string; status: "queued" } {
    resolveVariants(req.variants); // 400 before anything is stored
    const id = crypto.randomUUID();
    this.repo.insert({
      id,
      userId,
      name: req.name,
      request: JSON.stringify(req),
      createdAt: new Date(this.clock.now()).toISOString(),
    });
    this.onCreated();
    return { id, status: "queued" };
  }

  private owned(userId: string, id: string): BacktestRow {
    const row = this.repo.get(userId, id);
    if (!row) throw new NotFoundError("Backtest not found");
    return row;
  }

  get(userId: string, id: string): BacktestView {
    const row = this.owned(userId, id);
    const req = JSON.parse(row.request) as BacktestRequest;
    const results = this.repo.variants(id);
    const variants =
      results.length > 0
        ? results.map((v) => ({
            name: v.name,
            ...(JSON.parse(v.summary) as VariantSummary),
            equity: JSON.parse(v.equity) as EquityPoint[],
          }))
        : req.variants.map((v) => ({ name: v.name }));
    return { ...view(row), variants };
  }

  list(userId: string, limit: number, offset: number): Array<Omit<BacktestView, "variants"> & { variants: number }> {
    return this.repo.list(userId, limit, offset).map((row) => ({
      ...view(row),
      variants: (JSON.parse(row.request) as BacktestRequest).variants.length,
    }));
  }

  delete(userId: string, id: string): void {
    if (!this.repo.delete(userId, id)) throw new NotFoundError("Backtest not found");
  }

  /** The trades of a backtest (404 for another user's), lazily, named by variant. */
  trades(userId: string, id: string, variantName?: string): Iterable<BacktestTradeView> {
    const row = this.owned(userId, id);
    const names = (JSON.parse(row.request) as BacktestRequest).variants.map((v) => v.name);
    const index = variantName === undefined ? undefined : names.indexOf(variantName);
    if (index === -1) throw new NotFoundError("Variant not found");
    const rows = this.repo.trades(id, index);
    return (function* () {
      for (const t of rows) yield tradeView(t, names[t.variant] ?? String(t.variant));
    })();
  }

  /** The signals a selection picks, the user's own only. */
  selectSignals(userId: string, sel: SignalSelection): LabSignal[] {
    return "signalIds" in sel ? this.signals.byIds(userId, sel.signalIds) : this.signals.select(userId, sel);
  }
}

function view(row: BacktestRow): Omit<BacktestView, "variants"> {
  const req = JSON.parse(row.request) as BacktestRequest;
  return {
    id: row.id,
    name: row.name,
    status: row.status as BacktestStatus,
    progress: row.progress,
    error: row.error,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    initialSol: req.initialSol,
  };
}

function tradeView(t: BacktestTradeRow, variant: string): BacktestTradeView {
  return {
    variant,
    signalId: t.signalId,
    tokenAddress: t.tokenAddress,
    openedAt: t.openedAt,
    closedAt: t.closedAt,
    entryPriceSol: t.entryPriceSol,
    exitPriceSol: t.exitPriceSol,
    amount: t.amount,
    costSol: t.costSol,
    profitLossSol: t.profitLossSol,
    changePercent: t.changePercent,
    closeReason: t.closeReason,
    takeProfitLevels: t.takeProfitLevels,
    dcaOrders: t.dcaOrders,
  };
}
