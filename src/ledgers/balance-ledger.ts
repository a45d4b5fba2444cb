import { inOrJoinTransaction, type SqliteHandle } from "../db/client.ts";
import { findBalance, insertBalance, setBalanceText } from "../db/repositories/balances.ts";
import { newRowId } from "../db/row-id.ts";
import { TradingError } from "../errors.ts";
import { Big, SOL_MINT } from "../money.ts";

// The balance ledger: exact credit/debit on agent_balances rows (STYLE.md "Money"; PRODUCT.md §3
// wallets). Every function is synchronous so the trading engine can call it inside
// `inTransaction(...)` next to the transaction, position and snapshot it writes (SOL debit +
// token credit in ONE SQLite transaction). Called outside a transaction, each call opens its own.
//
// Amounts are exact decimals (big.js) stored as canonical decimal text: no exponent, no trailing
// zeros. A debit never takes a balance below zero.

export interface BalanceKey {
  agentId: string;
  walletAddress: string;
  tokenAddress: string;
}

export interface CreditOptions {
  /** ISO timestamp written to last_updated (from the injected Clock). */
  now: string;
  /** Symbol for a row the credit creates; an existing row keeps its own. */
  tokenSymbol?: string;
  /** Token decimals for a row the credit creates (SOL: 9). */
  decimals?: number | null;
}

/** Refused debit: "Insufficient SOL balance" / "Insufficient token balance" (SPEC "Messages in use"). */
export class InsufficientBalanceError extends TradingError {
  constructor(
    readonly tokenAddress: string,
    readonly required: Big,
    readonly available: Big,
  ) {
    super(tokenAddress === SOL_MINT ? "Insufficient SOL balance" : "Insufficient token balance", {
      required: Number(required.toPrecision(15)),
      available: Number(available.toPrecision(15)),
    });
  }
}

type Handle = SqliteHandle;

/** Canonical decimal text for storage: "-0" and trailing zeros never appear. */
export function canonicalAmount(v: Big): string {
  return v.eq(0) ? "0" : v.toFixed();
}

/** An amount argument: a decimal string, Big or safe number; never negative. */
function toAmount(v: string | number | Big): Big {
  const b = new Big(v);
  if (b.lt(0)) throw new RangeError("ledger amounts must not be negative");
  return b;
}

function atomically<T>(h: Handle, fn: () => T): T {
  // Inside the caller's transaction already: join it. Otherwise one immediate transaction, so the
  // read-modify-write below cannot interleave with another writer.
  return inOrJoinTransaction(h, fn);
}

/** The current balance (0 when the agent's wallet has no row for the token). */
export function readBalance(h: Handle, key: BalanceKey): Big {
  const row = findBalance(h, key);
  return new Big(row?.balance ?? "0");
}

/** Adds `amount`; creates the row when absent. Returns the new balance. */
export function credit(h: Handle, key: BalanceKey, amount: string | number | Big, opts: CreditOptions): Big {
  const add = toAmount(amount);
  return atomically(h, () => {
    const row = findBalance(h, key);
    if (row) {
      const next = new Big(row.balance).plus(add);
      setBalanceText(h, row.id, canonicalAmount(next), opts.now);
      return next;
    }
    const symbol = opts.tokenSymbol ?? (key.tokenAddress === SOL_MINT ? "SOL" : "");
    insertBalance(h, {
      id: newRowId(),
      ...key,
      tokenSymbol: symbol,
      balance: canonicalAmount(add),
      decimals: opts.decimals ?? null,
      now: opts.now,
    });
    return add;
  });
}

/** Subtracts `amount`; throws InsufficientBalanceError (nothing written) if it would go below 0. */
export function debit(h: Handle, key: BalanceKey, amount: string | number | Big, opts: { now: string }): Big {
  const take = toAmount(amount);
  return atomically(h, () => {
    const row = findBalance(h, key);
    const available = new Big(row?.balance ?? "0");
    if (available.lt(take)) throw new InsufficientBalanceError(key.tokenAddress, take, available);
    // Taking nothing from a token never held is a no-op, not a refusal.
    if (!row) return available;
    const next = available.minus(take);
    setBalanceText(h, row.id, canonicalAmount(next), opts.now);
    return next;
  });
}

/** Sets the balance outright (live mirrors of on-chain balances, wallet reset). */
export function setBalance(h: Handle, key: BalanceKey, amount: string | number | Big, opts: CreditOptions): Big {
  const value = toAmount(amount);
  return atomically(h, () => {
    const row = findBalance(h, key);
    if (row) {
      setBalanceText(h, row.id, canonicalAmount(value), opts.now);
      return value;
    }
    return credit(h, key, value, opts);
  });
}
