import { createPublicKey, verify } from "node:crypto";
import { ComputeBudgetProgram, PublicKey, SystemProgram, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { SOL_MINT } from "../../src/money.ts";
import { type Hold, Holds } from "./holds.ts";
import { fakeTokenAccount } from "./jupiter.ts";
import { type FakeMarket, type FakeRoute, jsonError } from "./market.ts";

// A fake Solana JSON-RPC 2.0 node (https://solana.com/docs/rpc/http) on the fake market's server
// at POST /rpc: SOLANA_RPC_URL = fake.url + "/rpc" (rpc.env() gives it). It is strict where the
// service could go wrong: it deserializes every transaction it is sent, verifies each required
// ed25519 signature against its signer (the fee payer) with node:crypto, checks the blockhash and
// its lastValidBlockHeight, and tracks SOL and token balances per owner. A "landed" swap applies
// the amounts of the quote it was built from (the fake Jupiter's /swap numbers each transaction:
// its 0..n-lamport self-transfer carries the index of the /swap request) and charges the fee.
//
// Methods: getBalance, getTokenAccountsByOwner (jsonParsed; classic Token and Token-2022, one
// account per owner and mint), getBlockHeight, simulateTransaction, sendTransaction (base64),
// getSignatureStatuses, getTransaction (json, v0: meta.fee, pre/postBalances, pre/postTokenBalances),
// getSignaturesForAddress (newest first; limit ≤ 1000, until, before; confirmed or finalized only).
// walletTrade() lands another wallet's swap (copy trading's watched wallets).
//
// Controls (tests): setSol / setTokenBalance, tokenProgram.set(mint, TOKEN_2022), the landing of
// the next sent transactions (confirm | hold | fail | after n status polls), land(sig) / failHeld,
// expire() (block height past every blockhash), failNext(method, {code,message} | {status}),
// hold(method) (the next call of it is answered only once the test releases it: a node slow to
// report), nextSimulationError, and `calls` (every request: method and params).

const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
const SIGNATURE_FEE = 5_000n;

export type Landing =
  | { kind: "confirm" }
  | { kind: "hold" }
  | { kind: "fail"; err?: unknown }
  | { kind: "after"; polls: number };

export type RpcFailure = { code: number; message: string } | { status: number; body?: string };

interface SwapEffect {
  payer: string;
  inputMint: string;
  inAmount: bigint;
  outputMint: string;
  outAmount: bigint;
  feeLamports: bigint;
}

export interface FakeTx {
  signature: string;
  payer: string;
  accountKeys: string[];
  effect: SwapEffect | null;
  lastValidBlockHeight: number;
  state: "held" | "landed";
  err: unknown;
  slot: number;
  /** Status polls left before a held "after" transaction lands. */
  pollsLeft: number | null;
  meta: { preBalances: bigint[]; postBalances: bigint[]; pre: TokenEntry[]; post: TokenEntry[]; fee: bigint } | null;
  failOnLand: unknown;
  /** Unix seconds of its block (getTransaction and getSignaturesForAddress `blockTime`). */
  blockTime?: number;
  /** Message header numRequiredSignatures (default 1) and compiled instructions (default none). */
  signerCount?: number;
  instructions?: Array<{ programIdIndex: number; accounts: number[]; data: string }>;
  /** meta.innerInstructions: what each top-level instruction (index) called. */
  innerInstructions?: Array<{ index: number; instructions: unknown[] }>;
  /** Transaction version (default 0). */
  version?: 0 | 1;
  /** Memo listed by getSignaturesForAddress (null when absent). */
  memo?: string;
}

/** A swap by some other wallet on this chain (copy trading's watched wallets): see walletTrade(). */
export interface WalletTrade {
  side: "buy" | "sell";
  mint: string;
  /** Lamports the wallet spends (buy) or receives (sell), fee apart. */
  lamports: bigint;
  /** Token atomic units it receives (buy) or spends (sell). */
  tokens: bigint;
  /** Unix seconds of the block. */
  blockTime: number;
  /** Moves wrapped SOL (a wSOL token account) instead of native lamports. */
  wrapped?: boolean;
  /** Lands failed: the fee is charged, nothing else moves. */
  err?: unknown;
  /** Who signed (the first pays the fee); default the owner alone. */
  signers?: string[];
  /**
   * "swap" (default): one instruction of `program` (default Raydium CPMM) naming the pool's
   * vault, which receives (buy) or pays (sell) the SOL. "friend": no DEX; the SOL goes to (comes
   * from) another wallet by a top-level System transfer and the token by a token transfer.
   */
  route?: "swap" | "friend";
  program?: string;
  /** Beside the swap (top level, after it), the wallet forwards the tokens it bought to this owner. */
  forwardTo?: string;
  /** Beside the swap (top level, after it), the wallet mints itself this token (it holds the mint authority). */
  mintedBeside?: { mint: string; amount: bigint };
  /** The transaction's version (default 0); 1 (SIMD-0296) is served only to a client that asks for it. */
  version?: 0 | 1;
}

interface TokenEntry {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

export class FakeSolanaRpc {
  blockHeight = 249_999_000;
  /** Blocks the chain advances on every getBlockHeight call (a blockhash expiring while confirming). */
  heightStep = 0;
  slot = 310_000_000;
  readonly lamports = new Map<string, bigint>();
  readonly tokens = new Map<string, Map<string, bigint>>();
  /** Token program per mint (default classic Token). */
  readonly tokenProgram = new Map<string, string>();
  readonly txs = new Map<string, FakeTx>();
  /** Every call: method and params, in order. */
  readonly calls: Array<{ method: string; params: unknown[] }> = [];
  /** getRecentPrioritizationFees: per slot the lowest landed fee (µL/CU) and per account the lowest that write-locked it. */
  recentFees: Array<{ slot: number; fee: number; accounts?: Record<string, number> }> = [];
  /** How the next sent transactions land, in order; then `defaultLanding`. */
  readonly landings: Landing[] = [];
  defaultLanding: Landing = { kind: "confirm" };
  /** Mint and freeze authorities per mint (default none: a renounced, freely transferable mint). */
  readonly mintAuthorities = new Map<string, { mint?: string; freeze?: string }>();
  /**
   * Token-2022 mint extensions per mint (type, value: spl-token-2022's TLV entries): such a mint
   * is served as a Token-2022 mint account carrying them.
   */
  readonly mintExtensions = new Map<string, Array<{ type: number; value: Uint8Array }>>();
  /**
   * The confirmationStatus a landed transaction reports: "confirmed" (the status seen first on
   * today's nodes), or "finalized" from the start, with confirmations null, as a node where
   * confirmed and finalized coincide (Alpenglow) answers: it never says "confirmed".
   */
  reportedCommitment: "confirmed" | "finalized" = "confirmed";
  /** The next simulateTransaction answers this err (then null again). */
  nextSimulationError: unknown = null;
  private readonly failures = new Map<string, RpcFailure[]>();
  private readonly holds = new Holds();

  constructor(readonly market: FakeMarket) {
    market.use(this.route());
  }

  get url(): string {
    return `${this.market.url}/rpc`;
  }

  env(): Record<string, string> {
    return { SOLANA_RPC_URL: this.url };
  }

  route(): FakeRoute {
    return { name: "solana.rpc", method: "POST", match: (p) => p === "/rpc", handle: (ctx) => this.handle(ctx.body) };
  }

  // --- controls -------------------------------------------------------------------------------

  setSol(owner: string, sol: string | number): void {
    const [w, f = ""] = String(sol).split(".");
    this.lamports.set(owner, BigInt(w!) * 1_000_000_000n + BigInt(`${f}000000000`.slice(0, 9)));
  }

  setTokenBalance(owner: string, mint: string, atomic: bigint): void {
    const m = this.tokens.get(owner) ?? new Map<string, bigint>();
    m.set(mint, atomic);
    this.tokens.set(owner, m);
  }

  lamportsOf(owner: string): bigint {
    return this.lamports.get(owner) ?? 0n;
  }

  tokenOf(owner: string, mint: string): bigint {
    return this.tokens.get(owner)?.get(mint) ?? 0n;
  }

  /** The next sent transactions land like this (in order). */
  landNext(...l: Landing[]): void {
    this.landings.push(...l);
  }

  /** The next calls of `method` fail: a JSON-RPC error object, or an HTTP status. */
  failNext(method: string, ...f: RpcFailure[]): void {
    const q = this.failures.get(method) ?? [];
    q.push(...f);
    this.failures.set(method, q);
  }

  /**
   * The next call of `method` is answered (from the chain's state at that moment) only after
   * release(); `reached` resolves when it arrives. A live trade waits for the node without sleeps.
   */
  hold(method: string): Hold {
    return this.holds.add(method);
  }

  /** Lands a held transaction now (its swap applies). */
  land(signature: string): void {
    const tx = this.txs.get(signature);
    if (tx?.state !== "held") throw new Error(`no held transaction ${signature}`);
    if (this.blockHeight > tx.lastValidBlockHeight)
      throw new Error("blockhash expired: the transaction can no longer land");
    this.apply(tx, null);
  }

  /** Lands a held transaction as failed (fee charged, swap not applied). */
  failHeld(signature: string, err: unknown = { InstructionError: [2, { Custom: 6001 }] }): void {
    const tx = this.txs.get(signature);
    if (tx?.state !== "held") throw new Error(`no held transaction ${signature}`);
    this.apply(tx, err);
  }

  /** Block height past every blockhash handed out: held transactions can never land. */
  expire(): void {
    this.blockHeight = Math.max(this.blockHeight, this.market.swap.lastValidBlockHeight) + 1;
  }

  /**
   * Lands a swap by `owner` against a pool, as a DEX trade of any wallet looks to a node: the
   * owner pays the fee and its SOL (or wSOL) and token balances move. Returns the signature.
   */
  walletTrade(owner: string, t: WalletTrade): string {
    const signature = bs58.encode(crypto.getRandomValues(new Uint8Array(64)));
    const signers = t.signers ?? [owner];
    const friend = t.route === "friend";
    // The counterpart: the DEX pool's vault (its wSOL vault when wrapped), or another wallet.
    const counterpart = friend ? FRIEND_WALLET : POOL_VAULT;
    const fee = SIGNATURE_FEE * BigInt(signers.length);
    const ownerPays = signers[0] === owner;
    const solBefore = this.lamportsOf(owner);
    const wsolBefore = this.tokenOf(owner, SOL_MINT);
    const tokBefore = this.tokenOf(owner, t.mint);
    const sign = t.side === "buy" ? -1n : 1n;
    const ok = t.err === undefined;
    const solAfter = solBefore - (ownerPays ? fee : 0n) + (ok && !t.wrapped ? sign * t.lamports : 0n);
    const wsolAfter = wsolBefore + (ok && t.wrapped ? sign * t.lamports : 0n);
    // What the swap moved, then what the wallet forwarded of it beside the swap.
    const tokAfter = tokBefore - (ok ? sign * t.tokens : 0n) - (ok && t.forwardTo ? t.tokens : 0n);
    const minted = ok ? (t.mintedBeside?.amount ?? 0n) : 0n;
    const mintedBefore = t.mintedBeside ? this.tokenOf(owner, t.mintedBeside.mint) : 0n;
    this.lamports.set(owner, solAfter);
    this.setTokenBalance(owner, t.mint, tokAfter);
    if (t.wrapped) this.setTokenBalance(owner, SOL_MINT, wsolAfter);
    if (t.mintedBeside) this.setTokenBalance(owner, t.mintedBeside.mint, mintedBefore + minted);
    const others = signers.filter((k) => k !== owner);
    // Keys as a node lists them: signers first (the fee payer at 0), then the owner unless it signed.
    const head = [...signers, ...(signers.includes(owner) ? [] : [owner])];
    const at = head.length;
    const entry = (i: number, mint: string, amount: bigint, holder = owner): TokenEntry => ({
      accountIndex: i,
      mint,
      owner: holder,
      programId: TOKEN_PROGRAM,
      amount,
      decimals: mint === SOL_MINT ? 9 : this.decimalsOf(mint),
    });
    // The token accounts the balances' accountIndex names: the owner's (token, then wSOL), then
    // the pool's token vault, the forwarded-to account, the minted mint and the owner's account of it.
    const accounts = [ataOf(owner, t.mint), ...(t.wrapped ? [ataOf(owner, SOL_MINT)] : [])];
    const extra = [
      POOL_TOKEN_VAULT,
      ...(t.forwardTo ? [ataOf(t.forwardTo, t.mint)] : []),
      ...(t.mintedBeside ? [t.mintedBeside.mint, ataOf(owner, t.mintedBeside.mint)] : []),
    ];
    const programs = friend
      ? [SYSTEM_PROGRAM, TOKEN_PROGRAM]
      : [t.program ?? RAYDIUM_CPMM, TOKEN_PROGRAM, SYSTEM_PROGRAM];
    const keys = [...head, counterpart, t.mint, ...accounts, ...extra, ...programs];
    const ix = (program: string, accs: string[], data: Uint8Array) => ({
      programIdIndex: keys.indexOf(program),
      accounts: accs.map((a) => keys.indexOf(a)),
      data: bs58.encode(data),
    });
    // An account the buy opened stays open (listed at 0) when everything it got was forwarded.
    const tokens = (tok: bigint, wsol: bigint, forwarded: bigint, mintedNow: bigint) => [
      ...(tok > 0n || forwarded > 0n ? [entry(at + 2, t.mint, tok)] : []),
      ...(t.wrapped ? [entry(at + 3, SOL_MINT, wsol)] : []),
      ...(t.forwardTo && forwarded > 0n ? [entry(keys.indexOf(extra[1]!), t.mint, forwarded, t.forwardTo)] : []),
      ...(t.mintedBeside && mintedNow > 0n
        ? [entry(keys.length - programs.length - 1, t.mintedBeside.mint, mintedNow)]
        : []),
    ];
    // A wrapped-SOL account's lamports are its rent plus the SOL it wraps.
    const lamportsOfAccounts = (wsol: bigint) => [
      TOKEN_ACCOUNT_RENT,
      ...(t.wrapped ? [TOKEN_ACCOUNT_RENT + wsol] : []),
      ...extra.map(() => TOKEN_ACCOUNT_RENT),
    ];
    const [ata, wsolAta] = accounts as [string, string | undefined];
    const decimals = this.decimalsOf(t.mint);
    const instructions = friend
      ? [
          // SOL to (or from) the friend, and the friend's token handed over (or back), top level.
          ix(SYSTEM_PROGRAM, [owner, counterpart], systemTransfer(t.lamports)),
          ix(TOKEN_PROGRAM, [ata, owner], new Uint8Array()),
        ]
      : [
          ix(t.program ?? RAYDIUM_CPMM, [owner, counterpart, t.mint, ata, POOL_TOKEN_VAULT], new Uint8Array([9])),
          ...(t.forwardTo
            ? [ix(TOKEN_PROGRAM, [ata, t.mint, extra[1]!, owner], transferChecked(t.tokens, decimals))]
            : []),
          ...(t.mintedBeside
            ? [ix(TOKEN_PROGRAM, [t.mintedBeside.mint, extra.at(-1)!, owner], mintTo(t.mintedBeside.amount))]
            : []),
        ];
    // What the DEX instruction called, as the node reports it (meta.innerInstructions): the SOL
    // leg (a System transfer, or a wSOL token transfer when wrapped; a sale's native SOL is paid
    // out by the program writing the vault's lamports, as Pump.fun's bonding curve does: no
    // instruction) and the token leg (a transferChecked).
    const solLeg = t.wrapped
      ? [
          t.side === "buy"
            ? ix(TOKEN_PROGRAM, [wsolAta!, counterpart, owner], tokenTransfer(t.lamports))
            : ix(TOKEN_PROGRAM, [counterpart, wsolAta!, counterpart], tokenTransfer(t.lamports)),
        ]
      : t.side === "buy"
        ? [ix(SYSTEM_PROGRAM, [owner, counterpart], systemTransfer(t.lamports))]
        : [];
    const tokenLeg =
      t.side === "buy"
        ? ix(TOKEN_PROGRAM, [POOL_TOKEN_VAULT, t.mint, ata, counterpart], transferChecked(t.tokens, decimals))
        : ix(TOKEN_PROGRAM, [ata, t.mint, POOL_TOKEN_VAULT, owner], transferChecked(t.tokens, decimals));
    const inner =
      friend || !ok ? [] : [{ index: 0, instructions: [...solLeg, tokenLeg].map((c) => ({ ...c, stackHeight: 2 })) }];
    const counterpartMove = ok ? sign * t.lamports : 0n;
    const payerLamports = others.map((k) => this.lamports.get(k) ?? 1_000_000_000n);
    for (const [i, k] of others.entries()) if (i === 0 && !ownerPays) this.lamports.set(k, payerLamports[i]! - fee);
    this.slot += 1;
    this.txs.set(signature, {
      signature,
      payer: signers[0]!,
      accountKeys: keys,
      effect: null,
      lastValidBlockHeight: this.blockHeight,
      state: "landed",
      err: t.err ?? null,
      slot: this.slot,
      pollsLeft: null,
      meta: {
        preBalances: [
          ...head.map((k) => (k === owner ? solBefore : (payerLamports[others.indexOf(k)] ?? 0n))),
          1_000_000_000_000n,
          1_461_600n,
          ...lamportsOfAccounts(wsolBefore),
          ...programs.map(() => 1n),
        ],
        postBalances: [
          ...head.map((k) =>
            k === owner ? solAfter : (payerLamports[others.indexOf(k)] ?? 0n) - (k === signers[0] ? fee : 0n),
          ),
          1_000_000_000_000n - counterpartMove,
          1_461_600n,
          ...lamportsOfAccounts(wsolAfter),
          ...programs.map(() => 1n),
        ],
        pre: tokens(tokBefore, wsolBefore, 0n, mintedBefore),
        post: tokens(tokAfter, wsolAfter, ok && t.forwardTo ? t.tokens : 0n, mintedBefore + minted),
        fee,
      },
      failOnLand: null,
      blockTime: t.blockTime,
      signerCount: signers.length,
      instructions,
      innerInstructions: inner,
      version: t.version,
    });
    return signature;
  }

  /**
   * Lands a dust transfer: `from` (signing, paying the fee) sends `to` one lamport by a System
   * transfer, with an optional memo as spam carries. The wallet neither signs nor moves tokens.
   */
  dust(to: string, o: { blockTime: number; from?: string; memo?: string }): string {
    const from = o.from ?? FRIEND_WALLET;
    const signature = bs58.encode(crypto.getRandomValues(new Uint8Array(64)));
    const fromBefore = this.lamports.get(from) ?? 1_000_000_000n;
    const toBefore = this.lamportsOf(to);
    this.lamports.set(from, fromBefore - SIGNATURE_FEE - 1n);
    this.lamports.set(to, toBefore + 1n);
    this.slot += 1;
    this.txs.set(signature, {
      signature,
      payer: from,
      accountKeys: [from, to, SYSTEM_PROGRAM],
      effect: null,
      lastValidBlockHeight: this.blockHeight,
      state: "landed",
      err: null,
      slot: this.slot,
      pollsLeft: null,
      meta: {
        preBalances: [fromBefore, toBefore, 1n],
        postBalances: [fromBefore - SIGNATURE_FEE - 1n, toBefore + 1n, 1n],
        pre: [],
        post: [],
        fee: SIGNATURE_FEE,
      },
      failOnLand: null,
      blockTime: o.blockTime,
      signerCount: 1,
      instructions: [{ programIdIndex: 2, accounts: [0, 1], data: "" }],
      memo: o.memo,
    });
    return signature;
  }

  sentTransactions(): FakeTx[] {
    return [...this.txs.values()];
  }

  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.params);
  }

  // --- dispatch -------------------------------------------------------------------------------

  private handle(body: unknown): Response | Promise<Response> {
    const req = body as { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown } | undefined;
    if (req?.jsonrpc !== "2.0" || typeof req.method !== "string")
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request" } });
    const call = req as { method: string; id?: unknown; params?: unknown };
    const held = this.holds.take(call.method);
    return held ? held.then(() => this.answer(call)) : this.answer(call);
  }

  private answer(req: { method: string; id?: unknown; params?: unknown }): Response {
    const id = req.id ?? null;
    const params = Array.isArray(req.params) ? req.params : [];
    this.calls.push({ method: req.method, params });
    const forced = this.failures.get(req.method)?.shift();
    if (forced) {
      if ("status" in forced) return new Response(forced.body ?? "", { status: forced.status });
      return Response.json({ jsonrpc: "2.0", id, error: { code: forced.code, message: forced.message } });
    }
    try {
      const result = this.dispatch(req.method, params);
      return Response.json({ jsonrpc: "2.0", id, result });
    } catch (err) {
      if (err instanceof RpcError)
        return Response.json({
          jsonrpc: "2.0",
          id,
          error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) },
        });
      return jsonError(500, { error: String(err) });
    }
  }

  private context() {
    return { apiVersion: "2.2.0", slot: this.slot };
  }

  private dispatch(method: string, params: unknown[]): unknown {
    switch (method) {
      case "getBalance": {
        const owner = pubkey(params[0]);
        return { context: this.context(), value: Number(this.lamportsOf(owner)) };
      }
      case "getBlockHeight":
        this.blockHeight += this.heightStep;
        return this.blockHeight;
      case "getEpochInfo":
        // The chain moves on as with getBlockHeight; one counter stands for every commitment.
        this.blockHeight += this.heightStep;
        return {
          absoluteSlot: this.slot,
          blockHeight: this.blockHeight,
          epoch: 800,
          slotIndex: this.slot % 432_000,
          slotsInEpoch: 432_000,
          transactionCount: null,
        };
      case "getLatestBlockhash":
        // The one blockhash this fake chain knows (the fake aggregator builds with it too).
        return {
          context: this.context(),
          value: { blockhash: this.market.swap.blockhash, lastValidBlockHeight: this.market.swap.lastValidBlockHeight },
        };
      case "isBlockhashValid":
        return {
          context: this.context(),
          value: params[0] === this.market.swap.blockhash && this.blockHeight <= this.market.swap.lastValidBlockHeight,
        };
      case "getFirstAvailableBlock":
        return 0;
      case "getMultipleAccounts":
        return this.multipleAccounts(params);
      case "getAccountInfo": {
        const cfg = params[1] as { encoding?: string } | undefined;
        if (cfg?.encoding !== "base64") throw new RpcError(-32602, "This fake answers base64 only");
        return { context: this.context(), value: this.accountAt(pubkey(params[0])) };
      }
      case "getTokenAccountsByOwner":
        return this.tokenAccounts(params);
      case "simulateTransaction":
        return this.simulate(params);
      case "sendTransaction":
        return this.send(params);
      case "getSignatureStatuses":
        return this.statuses(params);
      case "getTransaction":
        return this.transaction(params);
      case "getSignaturesForAddress":
        return this.signaturesFor(params);
      case "getRecentPrioritizationFees": {
        // As a node: per recent slot, its lowest fee raised to the lowest paid to write-lock any
        // of the given accounts (at most 128).
        const list = (params[0] ?? []) as unknown;
        if (!Array.isArray(list)) throw new RpcError(-32602, "Invalid params: expected an array of addresses");
        if (list.length > 128) throw new RpcError(-32602, "Too many inputs provided; max 128");
        const keys = list.map((a) => pubkey(a));
        return this.recentFees.slice(-150).map((f) => ({
          slot: f.slot,
          prioritizationFee: Math.max(f.fee, ...keys.map((k) => f.accounts?.[k] ?? 0)),
        }));
      }
      default:
        throw new RpcError(-32601, "Method not found");
    }
  }

  private tokenAccounts(params: unknown[]) {
    const owner = pubkey(params[0]);
    const filter = params[1] as { programId?: string; mint?: string } | undefined;
    const cfg = params[2] as { encoding?: string } | undefined;
    if (!filter || (filter.programId === undefined && filter.mint === undefined))
      throw new RpcError(-32602, "Invalid params: missing programId or mint filter");
    if (cfg?.encoding !== "jsonParsed") throw new RpcError(-32602, "This fake answers jsonParsed only");
    const value = [];
    for (const [mint, amount] of this.tokens.get(owner) ?? []) {
      const program = this.tokenProgram.get(mint) ?? TOKEN_PROGRAM;
      if (filter.programId !== undefined && filter.programId !== program) continue;
      if (filter.mint !== undefined && filter.mint !== mint) continue;
      const decimals = this.decimalsOf(mint);
      value.push({
        pubkey: ataOf(owner, mint),
        account: {
          data: {
            parsed: {
              info: { isNative: false, mint, owner, state: "initialized", tokenAmount: uiAmount(amount, decimals) },
              type: "account",
            },
            program: program === TOKEN_PROGRAM ? "spl-token" : "spl-token-2022",
            space: program === TOKEN_PROGRAM ? 165 : 182,
          },
          executable: false,
          lamports: 2_039_280,
          owner: program,
          rentEpoch: Number.MAX_SAFE_INTEGER, // the real value is u64::MAX, past a JS number
          space: program === TOKEN_PROGRAM ? 165 : 182,
        },
      });
    }
    return { context: this.context(), value };
  }

  /** The account at `address` from balances (a wallet, or a fake token account of one), or null. */
  private accountAt(
    address: string,
    lamports: (owner: string) => bigint = (o) => this.lamportsOf(o),
    tokens: (owner: string, mint: string) => bigint | undefined = (o, m) => this.tokens.get(o)?.get(m),
  ) {
    if (this.lamports.has(address)) return accountJson(SYSTEM_PROGRAM, lamports(address), new Uint8Array(0));
    if (this.market.tokens.has(address)) {
      const ext = this.mintExtensions.get(address);
      const program = ext ? TOKEN_2022_PROGRAM : (this.tokenProgram.get(address) ?? TOKEN_PROGRAM);
      const base = mintData(this.decimalsOf(address), this.mintAuthorities.get(address));
      return accountJson(program, 1_461_600n, ext ? withExtensions(base, ext) : base);
    }
    for (const owner of this.lamports.keys())
      for (const mint of this.market.tokens.keys()) {
        if (ataOf(owner, mint) !== address) continue;
        const amount = tokens(owner, mint);
        if (amount === undefined) return null;
        const program = this.tokenProgram.get(mint) ?? TOKEN_PROGRAM;
        return accountJson(program, TOKEN_ACCOUNT_RENT, tokenAccountData(mint, owner, amount));
      }
    return null;
  }

  private multipleAccounts(params: unknown[]) {
    const addresses = params[0];
    const cfg = params[1] as { encoding?: string } | undefined;
    if (!Array.isArray(addresses)) throw new RpcError(-32602, "Invalid params: addresses must be an array");
    if (cfg?.encoding !== "base64") throw new RpcError(-32602, "This fake answers base64 only");
    return { context: this.context(), value: addresses.map((a) => this.accountAt(pubkey(a))) };
  }

  /** The requested accounts as they would be after the swap lands (simulateTransaction `accounts`). */
  private accountsAfter(e: SwapEffect, addresses: unknown[]) {
    const sol = (o: string) => {
      let l = this.lamportsOf(o);
      if (o !== e.payer) return l;
      l -= e.feeLamports;
      if (e.inputMint === SOL_MINT) l -= e.inAmount;
      if (e.outputMint === SOL_MINT) l += e.outAmount;
      return l;
    };
    const tok = (o: string, m: string) => {
      const now = this.tokens.get(o)?.get(m);
      if (o !== e.payer) return now;
      if (m === e.inputMint) return (now ?? 0n) - e.inAmount;
      if (m === e.outputMint) return (now ?? 0n) + e.outAmount;
      return now;
    };
    return addresses.map((a) => this.accountAt(pubkey(a), sol, tok));
  }

  private decode(params: unknown[]): VersionedTransaction {
    const cfg = params[1] as { encoding?: string } | undefined;
    if (cfg?.encoding !== "base64") throw new RpcError(-32602, "This fake expects encoding base64");
    if (typeof params[0] !== "string") throw new RpcError(-32602, "Invalid params: transaction must be a string");
    try {
      return VersionedTransaction.deserialize(Buffer.from(params[0], "base64"));
    } catch {
      throw new RpcError(-32602, "invalid transaction: failed to deserialize");
    }
  }

  /** Every required signature verifies against its signer's public key (ed25519). */
  private verifySignatures(tx: VersionedTransaction): boolean {
    const n = tx.message.header.numRequiredSignatures;
    if (tx.signatures.length !== n) return false;
    const message = Buffer.from(tx.message.serialize());
    for (let i = 0; i < n; i++) {
      const signer = tx.message.staticAccountKeys[i]!;
      const key = createPublicKey({
        key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(signer.toBytes()).toString("base64url") },
        format: "jwk",
      });
      if (!verify(null, message, key, Buffer.from(tx.signatures[i]!))) return false;
    }
    return true;
  }

  /** The swap this transaction was built for, and its fee. */
  private effectOf(tx: VersionedTransaction): SwapEffect | null {
    const msg = tx.message;
    const keys = msg.staticAccountKeys.map((k) => k.toBase58());
    const payer = keys[0]!;
    let units = 200_000n;
    let microLamports = 0n;
    let nonce: bigint | null = null;
    for (const ix of msg.compiledInstructions) {
      const program = keys[ix.programIdIndex];
      const data = Buffer.from(ix.data);
      if (program === ComputeBudgetProgram.programId.toBase58()) {
        if (data[0] === 2) units = BigInt(data.readUInt32LE(1));
        if (data[0] === 3) microLamports = data.readBigUInt64LE(1);
      } else if (program === SystemProgram.programId.toBase58() && data.readUInt32LE(0) === 2) {
        nonce = data.readBigUInt64LE(4);
      }
    }
    const feeLamports =
      SIGNATURE_FEE * BigInt(msg.header.numRequiredSignatures) + (microLamports * units + 999_999n) / 1_000_000n;
    const swapReq = nonce !== null ? this.market.requestsTo("jupiter.swap")[Number(nonce) - 1] : undefined;
    const body = swapReq?.body as
      | {
          quoteResponse?: { inputMint: string; inAmount: string; outputMint: string; outAmount: string };
          userPublicKey?: string;
        }
      | undefined;
    if (!body?.quoteResponse || body.userPublicKey !== payer)
      return { payer, inputMint: SOL_MINT, inAmount: 0n, outputMint: SOL_MINT, outAmount: 0n, feeLamports };
    const q = body.quoteResponse;
    return {
      payer,
      inputMint: q.inputMint,
      inAmount: BigInt(q.inAmount),
      outputMint: q.outputMint,
      outAmount: BigInt(q.outAmount),
      feeLamports,
    };
  }

  /** Why the swap cannot execute from the payer's balances now, or null. */
  private shortfall(e: SwapEffect): unknown {
    const sol = this.lamportsOf(e.payer);
    if (sol < e.feeLamports) return "InsufficientFundsForFee";
    if (e.inputMint === SOL_MINT && sol < e.feeLamports + e.inAmount) return { InstructionError: [2, { Custom: 1 }] };
    if (e.inputMint !== SOL_MINT && this.tokenOf(e.payer, e.inputMint) < e.inAmount)
      return { InstructionError: [2, { Custom: 1 }] };
    return null;
  }

  private simulate(params: unknown[]) {
    const tx = this.decode(params);
    const cfg = params[1] as { sigVerify?: boolean };
    if (cfg.sigVerify && !this.verifySignatures(tx))
      throw new RpcError(-32003, "Transaction signature verification failure");
    const effect = this.effectOf(tx);
    let err = this.nextSimulationError ?? (effect ? this.shortfall(effect) : null);
    const wanted = (cfg as { accounts?: { addresses?: unknown[] } }).accounts?.addresses;
    const replace = (cfg as { replaceRecentBlockhash?: boolean }).replaceRecentBlockhash === true;
    this.nextSimulationError = null;
    if (
      !replace &&
      (tx.message.recentBlockhash !== this.market.swap.blockhash ||
        this.blockHeight > this.market.swap.lastValidBlockHeight)
    )
      err = "BlockhashNotFound";
    return {
      context: this.context(),
      value: {
        err,
        logs: err
          ? ["Program log: Error: simulated failure"]
          : ["Program log: Instruction: Route", "Program log: success"],
        accounts: Array.isArray(wanted) && !err && effect ? this.accountsAfter(effect, wanted) : null,
        unitsConsumed: 123_456,
        returnData: null,
      },
    };
  }

  private send(params: unknown[]): string {
    const tx = this.decode(params);
    const cfg = params[1] as { skipPreflight?: boolean };
    if (!this.verifySignatures(tx)) throw new RpcError(-32003, "Transaction signature verification failure");
    const signature = bs58.encode(tx.signatures[0]!);
    if (this.txs.has(signature)) return signature; // a re-send of the same transaction: lands at most once
    const effect = this.effectOf(tx);
    const blockhashOk =
      tx.message.recentBlockhash === this.market.swap.blockhash &&
      this.blockHeight <= this.market.swap.lastValidBlockHeight;
    if (!cfg.skipPreflight) {
      if (!blockhashOk) throw new RpcError(-32002, "Transaction simulation failed: Blockhash not found");
      const short = effect ? this.shortfall(effect) : null;
      if (short) throw new RpcError(-32002, `Transaction simulation failed: ${JSON.stringify(short)}`);
    }
    const landing = this.landings.shift() ?? this.defaultLanding;
    const fake: FakeTx = {
      signature,
      payer: tx.message.staticAccountKeys[0]!.toBase58(),
      accountKeys: tx.message.staticAccountKeys.map((k) => k.toBase58()),
      effect,
      lastValidBlockHeight: this.market.swap.lastValidBlockHeight,
      state: "held",
      err: null,
      slot: 0,
      pollsLeft: landing.kind === "after" ? landing.polls : null,
      meta: null,
      failOnLand: landing.kind === "fail" ? (landing.err ?? { InstructionError: [2, { Custom: 6001 }] }) : null,
    };
    this.txs.set(signature, fake);
    if (!blockhashOk) return signature; // skipped preflight: accepted, but it can never land
    if (landing.kind === "confirm" || landing.kind === "fail") this.apply(fake, fake.failOnLand);
    return signature;
  }

  /** The transaction lands in a block: fee charged, the swap applied unless it fails. */
  private apply(tx: FakeTx, failWith: unknown): void {
    const e = tx.effect!;
    const payer = e.payer;
    const mints = [e.inputMint, e.outputMint].filter((m) => m !== SOL_MINT);
    const snapshot = () => ({
      balances: tx.accountKeys.map((k) => this.lamportsOf(k)),
      tokens: mints.map((mint, i) => ({
        accountIndex: tx.accountKeys.length + i,
        mint,
        owner: payer,
        programId: this.tokenProgram.get(mint) ?? TOKEN_PROGRAM,
        amount: this.tokenOf(payer, mint),
        decimals: this.decimalsOf(mint),
      })),
    });
    const pre = snapshot();
    const err = failWith ?? this.shortfall(e);
    if (err === "InsufficientFundsForFee") {
      tx.state = "held"; // a fee payer that cannot pay: never lands
      return;
    }
    this.lamports.set(payer, this.lamportsOf(payer) - e.feeLamports);
    if (!err) {
      if (e.inputMint === SOL_MINT) this.lamports.set(payer, this.lamportsOf(payer) - e.inAmount);
      else this.setTokenBalance(payer, e.inputMint, this.tokenOf(payer, e.inputMint) - e.inAmount);
      if (e.outputMint === SOL_MINT) this.lamports.set(payer, this.lamportsOf(payer) + e.outAmount);
      else this.setTokenBalance(payer, e.outputMint, this.tokenOf(payer, e.outputMint) + e.outAmount);
    }
    const post = snapshot();
    this.slot += 1;
    tx.state = "landed";
    tx.err = err ?? null;
    tx.slot = this.slot;
    tx.meta = {
      preBalances: pre.balances,
      postBalances: post.balances,
      pre: pre.tokens.filter((t) => t.amount > 0n),
      post: post.tokens.filter((t) => t.amount > 0n),
      fee: e.feeLamports,
    };
  }

  private statuses(params: unknown[]) {
    const sigs = params[0];
    if (!Array.isArray(sigs) || sigs.length > 256) throw new RpcError(-32602, "Invalid params: at most 256 signatures");
    const value = sigs.map((s) => {
      const tx = this.txs.get(String(s));
      if (!tx) return null;
      if (tx.state === "held" && tx.pollsLeft !== null) {
        if (tx.pollsLeft > 0) tx.pollsLeft--;
        else if (this.blockHeight <= tx.lastValidBlockHeight) this.apply(tx, tx.failOnLand);
      }
      if (tx.state !== "landed") return null;
      const finalized = this.reportedCommitment === "finalized";
      return {
        slot: tx.slot,
        confirmations: finalized ? null : 10,
        err: tx.err,
        status: tx.err ? { Err: tx.err } : { Ok: null },
        confirmationStatus: this.reportedCommitment,
      };
    });
    return { context: this.context(), value };
  }

  /** Landed transactions touching the address, newest first, as a node lists them. */
  private signaturesFor(params: unknown[]) {
    const address = pubkey(params[0]);
    const cfg = (params[1] ?? {}) as { limit?: number; until?: string; before?: string; commitment?: string };
    const limit = cfg.limit ?? 1000;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RpcError(-32602, "Invalid limit; max 1000");
    if (cfg.commitment === "processed")
      throw new RpcError(-32602, "Method does not support commitment below `confirmed`");
    const landed = [...this.txs.values()]
      .filter((t) => t.state === "landed" && t.accountKeys.includes(address))
      .sort((a, b) => b.slot - a.slot);
    let from = 0;
    if (cfg.before) {
      const i = landed.findIndex((t) => t.signature === cfg.before);
      from = i < 0 ? landed.length : i + 1;
    }
    const out = [];
    for (const t of landed.slice(from)) {
      if (t.signature === cfg.until || out.length >= limit) break;
      out.push({
        signature: t.signature,
        slot: t.slot,
        err: t.err,
        memo: t.memo === undefined ? null : `[${t.memo.length}] ${t.memo}`,
        blockTime: t.blockTime ?? 1_767_225_600,
        confirmationStatus: this.reportedCommitment,
      });
    }
    return out;
  }

  private transaction(params: unknown[]) {
    const sig = String(params[0]);
    const cfg = params[1] as { encoding?: string; maxSupportedTransactionVersion?: number } | undefined;
    const tx = this.txs.get(sig);
    const version = tx?.version ?? 0;
    // As a node answers a client whose maxSupportedTransactionVersion is below the transaction's.
    if (cfg?.maxSupportedTransactionVersion === undefined || cfg.maxSupportedTransactionVersion < version)
      throw new RpcError(
        -32015,
        `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
      );
    if (tx?.state !== "landed" || !tx.meta) return null;
    const ui = (t: TokenEntry) => ({
      accountIndex: t.accountIndex,
      mint: t.mint,
      owner: t.owner,
      programId: t.programId,
      uiTokenAmount: uiAmount(t.amount, t.decimals),
    });
    return {
      slot: tx.slot,
      blockTime: tx.blockTime ?? 1_767_225_600,
      version,
      meta: {
        err: tx.err,
        status: tx.err ? { Err: tx.err } : { Ok: null },
        fee: Number(tx.meta.fee),
        preBalances: tx.meta.preBalances.map(Number),
        postBalances: tx.meta.postBalances.map(Number),
        preTokenBalances: tx.meta.pre.map(ui),
        postTokenBalances: tx.meta.post.map(ui),
        innerInstructions: tx.innerInstructions ?? [],
        logMessages: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: 123_456,
      },
      transaction: {
        message: {
          accountKeys: tx.accountKeys,
          header: {
            numRequiredSignatures: tx.signerCount ?? 1,
            numReadonlySignedAccounts: 0,
            numReadonlyUnsignedAccounts: 2,
          },
          recentBlockhash: this.market.swap.blockhash,
          instructions: tx.instructions ?? [],
        },
        signatures: [sig],
      },
    };
  }

  private decimalsOf(mint: string): number {
    return this.market.tokens.get(mint)?.decimals ?? 6;
  }
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

function pubkey(v: unknown): string {
  try {
    return new PublicKey(String(v)).toBase58();
  } catch {
    throw new RpcError(-32602, "Invalid param: Invalid");
  }
}

function uiAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, "0");
  const whole = decimals ? `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/\.?0+$/, "") : s;
  return { amount: amount.toString(), decimals, uiAmount: Number(whole), uiAmountString: whole };
}

/** A stable stand-in for the owner's associated token account address. */
const ataOf = fakeTokenAccount;

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
/** Raydium CPMM (src/copytrading/dex-programs.ts): the DEX a watched wallet's swap goes through. */
const RAYDIUM_CPMM = "CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C";
const POOL_VAULT = "5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1";
/** The pool's token vault: pays the token out (buy), takes it in (sell). */
const POOL_TOKEN_VAULT = "9vzQfPxRkZyHwGjTs7ncEtAXeR3UxWKs1jTfNcFqBbBy";
const FRIEND_WALLET = "Fr1endWa11et11111111111111111111111111111111";
const TOKEN_ACCOUNT_RENT = 2_039_280n;

/** System program Transfer (instruction 2): u32 tag, u64 lamports. */
function systemTransfer(lamports: bigint): Uint8Array {
  const d = new Uint8Array(12);
  const v = new DataView(d.buffer);
  v.setUint32(0, 2, true);
  v.setBigUint64(4, lamports, true);
  return d;
}

/** An SPL token instruction: one tag byte, a u64 amount, then `tail` (transferChecked's decimals). */
function tokenIx(tag: number, amount: bigint, tail: number[] = []): Uint8Array {
  const d = new Uint8Array(9 + tail.length);
  d[0] = tag;
  new DataView(d.buffer).setBigUint64(1, amount, true);
  d.set(tail, 9);
  return d;
}
const tokenTransfer = (amount: bigint) => tokenIx(3, amount);
const mintTo = (amount: bigint) => tokenIx(7, amount);
const transferChecked = (amount: bigint, decimals: number) => tokenIx(12, amount, [decimals]);

/** base64 account JSON as getMultipleAccounts and simulateTransaction answer it. */
function accountJson(owner: string, lamports: bigint, data: Uint8Array) {
  return {
    data: [Buffer.from(data).toString("base64"), "base64"],
    executable: false,
    lamports: Number(lamports),
    owner,
    rentEpoch: Number.MAX_SAFE_INTEGER,
    space: data.length,
  };
}

/** An initialized SPL mint (82 bytes): COption mint authority, supply, decimals, COption freeze authority. */
function mintData(decimals: number, auth: { mint?: string; freeze?: string } = {}): Uint8Array {
  const d = new Uint8Array(82);
  const v = new DataView(d.buffer);
  if (auth.mint) {
    v.setUint32(0, 1, true);
    d.set(bs58.decode(auth.mint), 4);
  }
  v.setBigUint64(36, 1_000_000_000n * 10n ** BigInt(decimals), true);
  d[44] = decimals;
  d[45] = 1;
  if (auth.freeze) {
    v.setUint32(46, 1, true);
    d.set(bs58.decode(auth.freeze), 50);
  }
  return d;
}

/** A Token-2022 mint with extensions: the base padded to 165 bytes, account type 1, TLV entries. */
function withExtensions(base: Uint8Array, ext: Array<{ type: number; value: Uint8Array }>): Uint8Array {
  const d = new Uint8Array(166 + ext.reduce((n, e) => n + 4 + e.value.length, 0));
  d.set(base, 0);
  d[165] = 1;
  const v = new DataView(d.buffer);
  let at = 166;
  for (const e of ext) {
    v.setUint16(at, e.type, true);
    v.setUint16(at + 2, e.value.length, true);
    d.set(e.value, at + 4);
    at += 4 + e.value.length;
  }
  return d;
}

/** An initialized SPL token account (165 bytes): mint, owner, amount; no delegate or close authority. */
function tokenAccountData(mint: string, owner: string, amount: bigint): Uint8Array {
  const d = new Uint8Array(165);
  d.set(bs58.decode(mint), 0);
  d.set(bs58.decode(owner), 32);
  new DataView(d.buffer).setBigUint64(64, amount, true);
  d[108] = 1; // AccountState::Initialized
  return d;
}
