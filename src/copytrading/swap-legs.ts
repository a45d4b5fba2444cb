import bs58 from "bs58";
import type { Call, LandedTransaction } from "../market/landed-transaction.ts";
import { SYSTEM_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../market/solana-rpc.ts";
import { SOL_MINT } from "../money.ts";

// What a DEX instruction moved for one wallet (docs/decisions/copy-trading-steering.md, "the
// swap's own legs"): read from the calls the swap made (meta.innerInstructions), never from the
// wallet's balances, which also show whatever else the transaction did (a token forwarded, a mint
// the wallet holds the authority of, a payment to a friend). Pure reads of the node's answer.

const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]);

/** A swap's effect on the wallet: per mint (not SOL) and in SOL, what came in (+) or went out (−). */
interface SwapLegs {
  tokens: Map<string, bigint>;
  /** Lamports and wrapped SOL, moved by System and token transfers inside the swap. */
  sol: bigint;
  /** Lamports that accounts the swap names (not the wallet's) lost: a program paying out by writing lamports. */
  paidOut: bigint;
}

interface Transfer {
  from: string;
  to: string;
  amount: bigint;
  /** Known for transferChecked; otherwise from the token accounts' balances. */
  mint: string | null;
  native: boolean;
}

const u64 = (d: Uint8Array, at: number) =>
  d.length >= at + 8 ? new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(at, true) : null;

/** A System or SPL token transfer (Transfer, TransferChecked, Token-2022 TransferCheckedWithFee), or null. */
function transferOf(c: Call): Transfer | null {
  const d = c.data;
  const [a0, a1, a2] = c.accounts;
  if (c.program === SYSTEM_PROGRAM_ID) {
    const tag = d.length >= 4 ? new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(0, true) : -1;
    const amount = u64(d, 4);
    if (amount === null) return null;
    // Transfer: [from, to]; TransferWithSeed: [from, base, to].
    if (tag === 2 && a0 && a1) return { from: a0, to: a1, amount, mint: null, native: true };
    if (tag === 11 && a0 && a2) return { from: a0, to: a2, amount, mint: null, native: true };
    return null;
  }
  if (!TOKEN_PROGRAMS.has(c.program)) return null;
  const [a3] = c.accounts.slice(3);
  if (d[0] === 3 && a0 && a1) return ofAmount(u64(d, 1), { from: a0, to: a1, mint: null });
  if (d[0] === 12 && a0 && a1 && a2) return ofAmount(u64(d, 1), { from: a0, to: a2, mint: a1 });
  if (d[0] === 26 && d[1] === 1 && a0 && a1 && a2 && a3 !== undefined)
    return ofAmount(u64(d, 2), { from: a0, to: a2, mint: a1 });
  return null;
}

function ofAmount(amount: bigint | null, t: Omit<Transfer, "amount" | "native">): Transfer | null {
  return amount === null ? null : { ...t, amount, native: false };
}

/**
 * Token accounts the transaction knows, address → mint and owner: from the node's token balances,
 * and from InitializeAccount(2, 3) instructions (an account opened and closed in one transaction,
 * a temporary wSOL account, is in neither balance list).
 */
function tokenAccounts(tx: LandedTransaction): Map<string, { mint: string; owner: string | null }> {
  const out = new Map<string, { mint: string; owner: string | null }>();
  for (const e of [...tx.preTokenBalances, ...tx.postTokenBalances]) {
    const key = tx.accountKeys[e.accountIndex];
    if (key) out.set(key, { mint: e.mint, owner: e.owner });
  }
  for (const ix of tx.instructions ?? [])
    for (const c of [ix, ...ix.inner]) {
      if (!TOKEN_PROGRAMS.has(c.program)) continue;
      const [account, mint, third] = c.accounts;
      if (!account || !mint || out.has(account)) continue;
      const tag = c.data[0];
      if (tag === 1 && third) out.set(account, { mint, owner: third });
      else if ((tag === 16 || tag === 18) && c.data.length >= 33)
        out.set(account, { mint, owner: bs58.encode(c.data.subarray(1, 33)) });
    }
  return out;
}

/**
 * The calls made inside a DEX instruction: every call of a top-level instruction of a DEX program,
 * and, under a router's or a bot's instruction, the calls nested under its DEX call (by the node's
 * stackHeight; the whole instruction where the node omits it).
 */
function insideDex(tx: LandedTransaction, dex: ReadonlySet<string>): Call[][] {
  const out: Call[][] = [];
  for (const ix of tx.instructions ?? []) {
    if (dex.has(ix.program)) {
      out.push([ix, ...ix.inner]);
      continue;
    }
    if (!ix.inner.some((c) => dex.has(c.program))) continue;
    if (ix.inner.some((c) => c.stackHeight === null)) {
      out.push([ix, ...ix.inner]);
      continue;
    }
    let under: number | null = null;
    let calls: Call[] = [];
    for (const c of ix.inner) {
      const h = c.stackHeight ?? 0;
      if (under !== null && h <= under) {
        out.push(calls);
        under = null;
      }
      if (under === null && dex.has(c.program)) {
        under = h;
        calls = [];
      }
      if (under !== null) calls.push(c);
    }
    if (under !== null) out.push(calls);
  }
  return out;
}

/** What the swaps of the transaction moved into (+) and out of (−) the wallet; null: no DEX instruction ran. */
export function swapLegs(tx: LandedTransaction, owner: string, dex: ReadonlySet<string>): SwapLegs | null {
  const swaps = insideDex(tx, dex);
  if (swaps.length === 0) return null;
  const accounts = tokenAccounts(tx);
  // A native transfer's endpoint may be a token account (SOL wrapped into the wallet's own wSOL
  // account): its owner is whose SOL it is, so wrapping is no leg and the wSOL transfer after it
  // counts once.
  const nativeEnd = (key: string) => ({ owner: accounts.get(key)?.owner ?? key, mint: SOL_MINT });
  const legs: SwapLegs = { tokens: new Map(), sol: 0n, paidOut: 0n };
  const named = new Set<string>();
  for (const calls of swaps)
    for (const c of calls) {
      for (const a of c.accounts) named.add(a);
      const t = transferOf(c);
      if (!t) continue;
      const from = t.native ? nativeEnd(t.from) : accounts.get(t.from);
      const to = t.native ? nativeEnd(t.to) : accounts.get(t.to);
      const mint = t.mint ?? from?.mint ?? to?.mint;
      if (!mint) continue;
      const change = (from?.owner === owner ? -t.amount : 0n) + (to?.owner === owner ? t.amount : 0n);
      if (change === 0n) continue;
      if (mint === SOL_MINT) legs.sol += change;
      else legs.tokens.set(mint, (legs.tokens.get(mint) ?? 0n) + change);
    }
  // The wallet and its own token accounts are not counterparts.
  named.delete(owner);
  for (const [key, a] of accounts) if (a.owner === owner) named.delete(key);
  tx.accountKeys.forEach((key, i) => {
    if (!named.has(key)) return;
    const d = (tx.postBalances[i] ?? 0n) - (tx.preBalances[i] ?? 0n);
    if (d < 0n) legs.paidOut -= d;
  });
  return legs;
}
