import { Database } from "bun:sqlite";
import { join } from "node:path";
import { openDatabase } from "../src/db/client.ts";
import { SOL_MINT } from "../src/money.ts";
import { type BenchOptions, FAN_OUT_TOKENS, type ServiceUnderTest } from "./lib/context.ts";
import { type BenchRow, median, row } from "./lib/stats.ts";

// 3. Fan-out: one buy signal to N eligible simulation agents, from the 201 to the last position
// committed (observed by polling the service's database read-only from this process, every
// millisecond), against the time raw bun:sqlite needs to write the same rows in one transaction.

const POLL_MS = 1;
const TIMEOUT_MS = 120_000;

interface FanOutRun {
  ms: number;
  /** From sending the request (the queue starts on the signal before the 201 is written). */
  fromRequestMs: number;
  positions: number;
  evaluations: number;
  outcomes: Record<string, number>;
  quoteRequests: number;
}

async function oneSignal(s: ServiceUnderTest, ro: Database, n: number, token: string): Promise<FanOutRun> {
  const user = s.fan.get(n);
  if (!user?.apiKey) throw new Error(`no fan-out user with ${n} agents`);
  const quotesBefore = s.fake.requestsTo("jupiter.build").length;
  const sent = performance.now();
  const res = await fetch(`${s.child.url}/api/v1/trading-signals`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": user.apiKey },
    body: JSON.stringify({ tokenAddress: token, symbol: "TK", signalType: "buy", signalStrength: 4, source: "bench" }),
  });
  const t0 = performance.now();
  const body = (await res.json()) as { id: number };
  if (res.status !== 201) throw new Error(`signal answered ${res.status}: ${JSON.stringify(body)}`);
  const positions = ro.query<{ n: number }, [number]>("SELECT count(*) AS n FROM positions WHERE signal_id = ?");
  const evaluations = ro.query<{ n: number }, [number]>(
    "SELECT count(*) AS n FROM signal_evaluations WHERE signal_id = ?",
  );
  let done = 0;
  let doneAt = t0;
  for (;;) {
    // Evaluations first: an agent's evaluation row is written after its position commits, so
    // positions read afterwards include every trade of the agents evaluated so far.
    const e = evaluations.get(body.id)!.n;
    const p = positions.get(body.id)!.n;
    if (p > done) {
      done = p;
      doneAt = performance.now();
    }
    // All positions, or every agent decided and some did not trade: the count will not grow.
    if (p >= n || e >= n) break;
    if (performance.now() - t0 > TIMEOUT_MS)
      throw new Error(`fan-out to ${n} agents: ${p} positions after ${TIMEOUT_MS} ms`);
    await Bun.sleep(POLL_MS);
  }
  // The evaluation rows are written after each trade; wait for the last ones before counting outcomes.
  while (evaluations.get(body.id)!.n < n && performance.now() - t0 < TIMEOUT_MS) await Bun.sleep(POLL_MS);
  const outcomes: Record<string, number> = {};
  for (const r of ro
    .query<{ o: string; n: number }, [number]>(
      "SELECT outcome AS o, count(*) AS n FROM signal_evaluations WHERE signal_id = ? GROUP BY outcome",
    )
    .all(body.id))
    outcomes[r.o] = r.n;
  return {
    ms: doneAt - t0,
    fromRequestMs: doneAt - sent,
    positions: done,
    evaluations: evaluations.get(body.id)!.n,
    outcomes,
    quoteRequests: s.fake.requestsTo("jupiter.build").length - quotesBefore,
  };
}

/** Waits until the signal queue has nothing pending (the ingest benchmark leaves a backlog). */
async function queueDrained(ro: Database): Promise<void> {
  const q = ro.query<{ n: number }, []>(
    "SELECT count(*) AS n FROM trading_signals WHERE processing_status IN ('pending', 'processing')",
  );
  const t0 = performance.now();
  while (q.get()!.n > 0) {
    if (performance.now() - t0 > TIMEOUT_MS) throw new Error("signal queue did not drain");
    await Bun.sleep(20);
  }
}

/**
 * The floor: the rows one buy writes per agent (trade key, SOL debit, token credit, transaction,
 * position, snapshot, evaluation), for N agents, with prepared statements in ONE transaction on a
 * fresh database with the service's schema and PRAGMAs.
 */
export function rawFanOutFloorMs(dir: string, n: number, run = 0): number {
  const db = openDatabase(join(dir, `fan-floor-${n}-${run}.db`));
  const sq = db.sqlite;
  const now = new Date().toISOString();
  const user = crypto.randomUUID();
  sq.query("INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, ?, 'x', ?, ?)").run(
    user,
    `floor${n}-${run}@bench.local`,
    now,
    now,
  );
  const agents: Array<{ id: string; wallet: string }> = [];
  sq.transaction(() => {
    for (let i = 0; i < n; i++) {
      const id = crypto.randomUUID();
      const wallet = `sim_floor${n}_${run}_${i}`;
      sq.query(
        "INSERT INTO agents (id, user_id, name, trading_mode, automated_trading_simulation, automated_trading_live, created_at, updated_at) VALUES (?, ?, ?, 'simulation', 1, 0, ?, ?)",
      ).run(id, user, `a${i}`, now, now);
      sq.query(
        "INSERT INTO agent_wallets (id, agent_id, wallet_address, wallet_type, created_at, updated_at) VALUES (?, ?, ?, 'simulation', ?, ?)",
      ).run(crypto.randomUUID(), id, wallet, now, now);
      sq.query(
        "INSERT INTO agent_balances (id, agent_id, wallet_address, token_address, token_symbol, balance, decimals, last_updated, created_at) VALUES (?, ?, ?, ?, 'SOL', '10', 9, ?, ?)",
      ).run(crypto.randomUUID(), id, wallet, SOL_MINT, now, now);
      agents.push({ id, wallet });
    }
  })();
  const signalId = Number(
    sq
      .query(
        "INSERT INTO trading_signals (user_id, token_address, symbol, signal_type, signal_strength, processing_status, created_at, updated_at) VALUES (?, ?, 'TK', 'buy', 4, 'processing', ?, ?)",
      )
      .run(user, FAN_OUT_TOKENS[0] as string, now, now).lastInsertRowid,
  );
  const key = sq.query(
    "INSERT INTO trade_idempotency (agent_id, signal_id, action, transaction_id, created_at) VALUES (?, ?, 'BUY', ?, ?)",
  );
  const debit = sq.query(
    "UPDATE agent_balances SET balance = ?, last_updated = ? WHERE agent_id = ? AND wallet_address = ? AND token_address = ?",
  );
  const credit = sq.query(
    "INSERT INTO agent_balances (id, agent_id, wallet_address, token_address, token_symbol, balance, decimals, last_updated, created_at) VALUES (?, ?, ?, ?, 'TK', '5000', 6, ?, ?)",
  );
  const tx = sq.query(
    `INSERT INTO agent_transactions (id, agent_id, wallet_address, transaction_type, transaction_value_usd, transaction_time, destination_address, signal_id, fees, routes,
       input_mint, input_symbol, input_amount, input_price, output_mint, output_symbol, output_amount, output_price, slippage, price_impact, is_dca, is_take_profit,
       trading_mode, transaction_hash, status, position_id, created_at, updated_at)
     VALUES (?, ?, ?, 'BUY', '50.01', ?, ?, ?, '0.000105', '["Raydium"]', ?, 'SOL', '0.5', '100', ?, 'TK', '5000', '0.01', '300', '0', 0, 0, 'simulation', ?, 'confirmed', ?, ?, ?)`,
  );
  const pos = sq.query(
    `INSERT INTO positions (id, agent_id, wallet_address, trading_mode, token_address, token_symbol, token_decimals, signal_id, status, entry_price_sol, entry_price_usd,
       purchase_amount, cost_sol, cost_usd, remaining_amount, peak_price_sol, last_price_sol, last_price_usd, purchase_transaction_id, purchase_transaction_hash,
       opened_at, created_at, updated_at)
     VALUES (?, ?, ?, 'simulation', ?, 'TK', 6, ?, 'open', '0.0001', '0.01', '5000', '0.500105', '50.0105', '5000', '0.0001', '0.0001', '0.01', ?, ?, ?, ?, ?)`,
  );
  const snap = sq.query(
    "INSERT INTO balance_snapshots (id, agent_id, wallet_address, sol_balance, total_value_sol, total_value_usd, reason, created_at) VALUES (?, ?, ?, '9.499895', '9.999895', '999.99', 'trade', ?)",
  );
  const evalRow = sq.query(
    "INSERT OR REPLACE INTO signal_evaluations (signal_id, agent_id, eligible, reason, outcome, created_at) VALUES (?, ?, 1, NULL, 'traded', ?)",
  );
  const mint = FAN_OUT_TOKENS[0] as string;
  const started = performance.now();
  sq.transaction(() => {
    for (const a of agents) {
      const txId = crypto.randomUUID();
      const posId = crypto.randomUUID();
      const hash = `sim_${crypto.randomUUID().replace(/-/g, "")}`;
      key.run(a.id, signalId, txId, now);
      debit.run("9.499895", now, a.id, a.wallet, SOL_MINT);
      credit.run(crypto.randomUUID(), a.id, a.wallet, mint, now, now);
      tx.run(txId, a.id, a.wallet, now, mint, signalId, SOL_MINT, mint, hash, posId, now, now);
      pos.run(posId, a.id, a.wallet, mint, signalId, txId, hash, now, now, now);
      snap.run(crypto.randomUUID(), a.id, a.wallet, now);
      evalRow.run(signalId, a.id, now);
    }
  })();
  const ms = performance.now() - started;
  db.close();
  return ms;
}

export async function fanOut(o: BenchOptions, s: ServiceUnderTest): Promise<BenchRow[]> {
  const ro = new Database(s.dbPath, { readonly: true });
  ro.exec("PRAGMA busy_timeout = 5000");
  const rows: BenchRow[] = [];
  try {
    await queueDrained(ro);
    for (const n of s.sizes.fanOut) {
      const runs: FanOutRun[] = [];
      for (let i = 0; i < s.sizes.fanOutRuns; i++)
        runs.push(await oneSignal(s, ro, n, FAN_OUT_TOKENS[i % FAN_OUT_TOKENS.length] as string));
      const floors = [1, 2, 3].map((k) => rawFanOutFloorMs(o.dir, n, k));
      const ms = median(runs.map((r) => r.ms));
      const floor = median(floors);
      const incomplete = runs.filter((r) => r.positions < n);
      // The target (docs/performance.md): 1,000 agents within 5× the floor and under 300 ms; 100
      // agents is shown without a target.
      const target = n >= 1000;
      rows.push(
        row({
          id: `fanout.${n}`,
          name: `Fan-out: 1 signal → ${n.toLocaleString("en-US")} agents, 201 → last position`,
          unit: "ms",
          value: ms,
          baselineName: "raw SQLite, same rows, 1 transaction",
          baselineValue: floor,
          target: target ? "≤ 5×, < 300 ms" : "",
          check: target ? (q, v) => q <= 5 && v < 300 && incomplete.length === 0 : undefined,
          details: {
            runs: runs.map((r) => ({
              ms: Math.round(r.ms),
              fromRequestMs: Math.round(r.fromRequestMs),
              positions: r.positions,
              outcomes: r.outcomes,
              quoteRequests: r.quoteRequests,
            })),
            floorsMs: floors,
            perAgentMs: ms / n,
          },
          note: incomplete.length > 0 ? `${incomplete.length} run(s) opened fewer than ${n} positions` : undefined,
        }),
      );
    }
  } finally {
    ro.close();
  }
  return rows;
}
