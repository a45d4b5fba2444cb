import { and, desc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { requireOwnedAgent } from "../agents/ownership.ts";
import type { Clock } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { agents, agentTransactions } from "../db/schema/index.ts";
import { NotFoundError, ValidationError } from "../errors.ts";
import type { Logger } from "../logger.ts";

// Agent transactions (SPEC "Agent transaction", "Agent transaction endpoints"): the record of
// every BUY and SELL. The trading engine writes them inside its trade transaction; the HTTP CRUD
// is for internal tooling and corrections.

type Row = typeof agentTransactions.$inferSelect;

export interface TransactionView {
  id: string;
  agentId: string;
  walletAddress: string;
  transactionType: "BUY" | "SELL";
  transactionValueUsd: string;
  transactionTime: string;
  destinationAddress: string | null;
  signalId: number | null;
  fees: string | null;
  routes: string[];
  inputMint: string;
  inputSymbol: string | null;
  inputAmount: string;
  inputPrice: string | null;
  outputMint: string;
  outputSymbol: string | null;
  outputAmount: string;
  outputPrice: string | null;
  slippage: string | null;
  priceImpact: string | null;
  isDca: boolean;
  isTakeProfit: boolean;
  tradingMode: string;
  transactionHash: string | null;
  status: string;
  createdAt: string;
  updatedAt: string;
}

export const toTransactionView = (r: Row): TransactionView => ({
  id: r.id,
  agentId: r.agentId,
  walletAddress: r.walletAddress,
  transactionType: r.transactionType,
  transactionValueUsd: r.transactionValueUsd,
  transactionTime: r.transactionTime,
  destinationAddress: r.destinationAddress,
  signalId: r.signalId,
  fees: r.fees,
  routes: r.routes ?? [],
  inputMint: r.inputMint,
  inputSymbol: r.inputSymbol,
  inputAmount: r.inputAmount,
  inputPrice: r.inputPrice,
  outputMint: r.outputMint,
  outputSymbol: r.outputSymbol,
  outputAmount: r.outputAmount,
  outputPrice: r.outputPrice,
  slippage: r.slippage,
  priceImpact: r.priceImpact,
  isDca: r.isDca,
  isTakeProfit: r.isTakeProfit,
  tradingMode: r.tradingMode,
  transactionHash: r.transactionHash,
  status: r.status,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/** Fields a caller may set; agentId only on creation (a record never moves between agents). */
export interface TransactionFields {
  walletAddress: string;
  transactionType: "BUY" | "SELL";
  transactionValueUsd: string;
  transactionTime: string;
  destinationAddress: string | null;
  signalId: number | null;
  fees: string | null;
  routes: string[];
  inputMint: string;
  inputSymbol: string | null;
  inputAmount: string;
  inputPrice: string | null;
  outputMint: string;
  outputSymbol: string | null;
  outputAmount: string;
  outputPrice: string | null;
  slippage: string | null;
  priceImpact: string | null;
  isDca: boolean;
  isTakeProfit: boolean;
  transactionHash: string | null;
}

export type TransactionCreate = { agentId: string } & Pick<
  TransactionFields,
  | "walletAddress"
  | "transactionType"
  | "transactionValueUsd"
  | "inputMint"
  | "inputAmount"
  | "outputMint"
  | "outputAmount"
> &
  Partial<TransactionFields>;

export interface TransactionQuery {
  agentId: string;
  walletAddress?: string;
  transactionType?: "BUY" | "SELL";
  startTime?: string;
  endTime?: string;
  signalId?: number;
  isDca?: boolean;
  isTakeProfit?: boolean;
  limit: number;
  offset: number;
}

export class AgentTransactionService {
  constructor(
    private readonly database: DatabaseHandle,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  private get db() {
    return this.database.db;
  }

  private nowIso(): string {
    return new Date(this.clock.now()).toISOString();
  }

  private owned(userId: string, id: string): Row {
    const row = this.db
      .select({ t: agentTransactions })
      .from(agentTransactions)
      .innerJoin(agents, eq(agents.id, agentTransactions.agentId))
      .where(and(eq(agentTransactions.id, id), eq(agents.userId, userId)))
      .get();
    if (!row) throw new NotFoundError("Transaction not found");
    return row.t;
  }

  /** Newest transactionTime first; every filter of the spec narrows with AND. */
  list(userId: string, q: TransactionQuery): TransactionView[] {
    requireOwnedAgent(this.database, userId, q.agentId);
    const t = agentTransactions;
    const where: SQL[] = [eq(t.agentId, q.agentId)];
    if (q.walletAddress !== undefined) where.push(eq(t.walletAddress, q.walletAddress));
    if (q.transactionType !== undefined) where.push(eq(t.transactionType, q.transactionType));
    if (q.startTime !== undefined) where.push(gte(t.transactionTime, q.startTime));
    if (q.endTime !== undefined) where.push(lte(t.transactionTime, q.endTime));
    if (q.signalId !== undefined) where.push(eq(t.signalId, q.signalId));
    if (q.isDca !== undefined) where.push(eq(t.isDca, q.isDca));
    if (q.isTakeProfit !== undefined) where.push(eq(t.isTakeProfit, q.isTakeProfit));
    return this.db
      .select()
      .from(t)
      .where(and(...where))
      .orderBy(desc(t.transactionTime), desc(sql`rowid`))
      .limit(q.limit)
      .offset(q.offset)
      .all()
      .map(toTransactionView);
  }

  get(userId: string, id: string): TransactionView {
    return toTransactionView(this.owned(userId, id));
  }

  create(userId: string, input: TransactionCreate): TransactionView {
    requireOwnedAgent(this.database, userId, input.agentId);
    const now = this.nowIso();
    const row = {
      id: crypto.randomUUID(),
      agentId: input.agentId,
      walletAddress: input.walletAddress,
      transactionType: input.transactionType,
      transactionValueUsd: input.transactionValueUsd,
      transactionTime: input.transactionTime ?? now,
      destinationAddress: input.destinationAddress ?? null,
      signalId: input.signalId ?? null,
      fees: input.fees ?? null,
      routes: input.routes ?? [],
      inputMint: input.inputMint,
      inputSymbol: input.inputSymbol ?? null,
      inputAmount: input.inputAmount,
      inputPrice: input.inputPrice ?? null,
      outputMint: input.outputMint,
      outputSymbol: input.outputSymbol ?? null,
      outputAmount: input.outputAmount,
      outputPrice: input.outputPrice ?? null,
      slippage: input.slippage ?? null,
      priceImpact: input.priceImpact ?? null,
      isDca: input.isDca ?? false,
      isTakeProfit: input.isTakeProfit ?? false,
      transactionHash: input.transactionHash ?? null,
      createdAt: now,
      updatedAt: now,
    };
    this.db.insert(agentTransactions).values(row).run();
    this.logger.info("agent transaction recorded", {
      agentId: input.agentId,
      transactionId: row.id,
      type: row.transactionType,
    });
    return this.get(userId, row.id);
  }

  update(userId: string, id: string, patch: Partial<TransactionFields>): TransactionView {
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    if (Object.keys(changes).length === 0) throw new ValidationError("At least one field must be provided");
    const row = this.owned(userId, id);
    this.db
      .update(agentTransactions)
      .set({ ...changes, updatedAt: this.nowIso() })
      .where(eq(agentTransactions.id, id))
      .run();
    this.logger.info("agent transaction updated", {
      agentId: row.agentId,
      transactionId: id,
      fields: Object.keys(changes),
    });
    return this.get(userId, id);
  }

  delete(userId: string, id: string): void {
    const row = this.owned(userId, id);
    this.db.delete(agentTransactions).where(eq(agentTransactions.id, id)).run();
    this.logger.info("agent transaction deleted", { agentId: row.agentId, transactionId: id });
  }
}
