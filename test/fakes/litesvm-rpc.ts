import { createPublicKey, verify } from "node:crypto";
import {
  ACCOUNT_SIZE,
  getTransferFeeConfig,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccount,
  unpackMint,
} from "@solana/spl-token";
import { AddressLookupTableAccount, type MessageAccountKeys, PublicKey, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { LiteSVM } from "litesvm";
import { JUPITER_V6, jupiterGuardProgram } from "./jupiter-program.ts";
import { landedDespiteError, transactionErrorJson } from "./litesvm-errors.ts";
import { LocalServer } from "./local-server.ts";

// A Solana JSON-RPC 2.0 node (https://solana.com/docs/rpc/http) on 127.0.0.1 whose state is a
// real Solana runtime: litesvm (the SVM with the System, SPL Token, Token-2022, Associated Token
// Account and Address Lookup Table programs), so transactions the service signs really execute.
// The shim adds what litesvm lacks and a node has: a slot and block-height clock the test moves,
// blockhashes that expire at their lastValidBlockHeight, transaction history with pre/post
// balances, an owner index of token accounts, a lagging view (minContextSlot), and send modes
// where the node errors but the transaction lands, or answers a signature and drops it. An
// address's landed transactions are listed newest first (getSignaturesForAddress: copy trading).
//
//   const chain = await startLiteSvmRpc();
//   chain.airdrop(wallet, 2_000_000_000n);
//   const rpc = new SolanaRpcClient({ url: chain.url, timeoutMs: 5000 });
//   chain.advance(151);                 // the blockhash handed out before is now past its height
//   chain.sendModes.push({ kind: "error-but-land" });
//   await chain.stop();

/** Blocks a blockhash stays valid for, as on mainnet (MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALIDITY = 150;
const SIGNATURE_FEE = 5_000n;
const ALT_PROGRAM = new PublicKey("AddressLookupTab1e1111111111111111111111111");
const COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111";

export type SendMode =
  | { kind: "land" }
  | { kind: "error-but-land"; error?: { code: number; message: string } }
  | { kind: "drop" }
  | { kind: "error"; error?: { code: number; message: string } };

export interface LandedTx {
  signature: string;
  slot: number;
  blockHeight: number;
  err: unknown;
  fee: bigint;
  logs: string[];
  raw: Uint8Array;
  tx: VersionedTransaction;
  keys: { static: string[]; writable: string[]; readonly: string[] };
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: unknown[];
  postTokenBalances: unknown[];
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

export class LiteSvmRpc extends LocalServer {
  readonly svm: LiteSVM;
  slot = 1_000;
  blockHeight = 900;
  /** The node answers as if it were this many slots behind (a lagging load-balanced node). */
  lagSlots = 0;
  /** How the next sendTransaction calls behave, in order; then "land". */
  readonly sendModes: SendMode[] = [];
  readonly landed = new Map<string, LandedTx>();
  /** Every call: method and params. */
  readonly calls: Array<{ method: string; params: unknown[] }> = [];
  /** Signatures of every sendTransaction call (re-sends included). */
  readonly sends: string[] = [];
  /**
   * What getRecentPrioritizationFees reports: per slot, the slot's lowest landed fee
   * (micro-lamports per compute unit) and, per account, the lowest fee that write-locked it.
   */
  recentFees: Array<{ slot: number; fee: number; accounts?: Record<string, number> }> = [];
  /**
   * While true, what landed is not reported yet (getSignatureStatuses answers null, getTransaction
   * null): a send lands but its confirmation is held, e.g. to kill the service in between.
   */
  withholdConfirmations = false;
  /**
   * A node where confirmed and finalized coincide (Alpenglow): statuses and signature lists say
   * "finalized" (confirmations null) at any depth, never "confirmed".
   */
  finalizedOnly = false;
  /**
   * The oldest slot whose transactions the node still has (getFirstAvailableBlock): statuses and
   * transactions that landed before it answer null, as a node without full history does.
   */
  firstAvailableSlot = 0;
  /**
   * Set: getLatestBlockhash answers this older blockhash (a node whose view is a few blocks behind
   * the one another party, Jupiter, built a transaction on); everything else is unchanged.
   */
  behindBlockhash: { blockhash: string; lastValidBlockHeight: number } | null = null;
  /**
   * The next N isBlockhashValid asks at `confirmed` answer false for a valid blockhash: one the
   * node has processed but not confirmed yet (another party built on a fresher view).
   */
  unconfirmedAsks = 0;
  private readonly failures = new Map<string, Array<{ code: number; message: string }>>();
  private readonly blockhashes = new Map<string, number>();
  private readonly heightAtSlot = new Map<number, number>();
  private readonly tokenAccounts = new Set<string>();

  constructor() {
    super();
    // Signatures are verified by the shim (so simulation can skip them, as sigVerify: false does).
    this.svm = new LiteSVM().withSigverify(false).withNativeMints();
    // The fake Jupiter v6 program: enforces a route's minimum from its bytes (jupiter-program.ts).
    this.svm.addProgram(JUPITER_V6, jupiterGuardProgram());
    this.svm.warpToSlot(BigInt(this.slot));
    this.heightAtSlot.set(this.slot, this.blockHeight);
    this.blockhashes.set(this.svm.latestBlockhash(), this.blockHeight + BLOCKHASH_VALIDITY);
  }

  // ---- controls --------------------------------------------------------------------------------

  /** The slot the node answers at (behind the chain by lagSlots). */
  get viewSlot(): number {
    return this.slot - this.lagSlots;
  }

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    const blockhash = this.svm.latestBlockhash();
    return { blockhash, lastValidBlockHeight: this.blockhashes.get(blockhash)! };
  }

  /** Moves the chain `slots` slots (and blocks) on; an outlived blockhash is replaced. */
  advance(slots: number): void {
    for (let i = 0; i < slots; i++) {
      this.slot++;
      this.blockHeight++;
      this.heightAtSlot.set(this.slot, this.blockHeight);
    }
    this.svm.warpToSlot(BigInt(this.slot));
    const current = this.latestBlockhash();
    if (this.blockHeight > current.lastValidBlockHeight) {
      // litesvm accepts only its latest blockhash: rotating it is what makes old ones expire.
      this.svm.expireBlockhash();
      this.blockhashes.set(this.svm.latestBlockhash(), this.blockHeight + BLOCKHASH_VALIDITY);
    }
  }

  /** Moves the chain just past the lastValidBlockHeight of the current blockhash. */
  expireBlockhash(): void {
    this.advance(this.latestBlockhash().lastValidBlockHeight - this.blockHeight + 1);
  }

  airdrop(address: PublicKey | string, lamports: bigint): void {
    this.svm.airdrop(new PublicKey(address), lamports);
  }

  lamportsOf(address: PublicKey | string): bigint {
    return this.svm.getBalance(new PublicKey(address)) ?? 0n;
  }

  /** Registers a token account in the owner index (done by itself for accounts a sent tx touches). */
  track(address: PublicKey | string): void {
    this.tokenAccounts.add(new PublicKey(address).toBase58());
  }

  /** The next calls of `method` over HTTP answer these JSON-RPC errors (in order) instead. */
  failNext(method: string, ...errors: Array<{ code: number; message: string }>): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...errors]);
  }

  /** Executes a transaction directly (set-up by the test or a fake pool), as if landed. */
  execute(tx: VersionedTransaction): LandedTx {
    const r = this.land(tx);
    if (r.err) throw new Error(`set-up transaction failed: ${JSON.stringify(r.err)} ${r.logs.join(" | ")}`);
    return r;
  }

  /** One JSON-RPC call in-process (another fake landing transactions here: Jupiter /execute, Jito). */
  rpcCall(method: string, params: unknown[]): { result?: unknown; error?: { code: number; message: string } } {
    this.calls.push({ method, params });
    try {
      return { result: this.dispatch(method, params) };
    } catch (e) {
      if (e instanceof RpcError) return { error: { code: e.code, message: e.message } };
      throw e;
    }
  }

  // ---- HTTP ------------------------------------------------------------------------------------

  protected async handle(req: Request): Promise<Response> {
    if (req.method !== "POST") return new Response("method not allowed", { status: 405 });
    let body: { id?: unknown; method?: unknown; params?: unknown };
    try {
      body = (await req.json()) as typeof body;
    } catch {
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    const id = body.id ?? null;
    const method = String(body.method);
    const params = Array.isArray(body.params) ? body.params : [];
    this.calls.push({ method, params });
    const failure = this.failures.get(method)?.shift();
    if (failure) return Response.json({ jsonrpc: "2.0", id, error: failure });
    try {
      const result = this.dispatch(method, params);
      return Response.json({ jsonrpc: "2.0", id, result });
    } catch (e) {
      if (e instanceof RpcError)
        return Response.json({
          jsonrpc: "2.0",
          id,
          error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) },
        });
      throw e;
    }
  }

  private dispatch(method: string, params: unknown[]): unknown {
    const cfg = (i: number) =>
      params[i] && typeof params[i] === "object" ? (params[i] as Record<string, unknown>) : {};
    switch (method) {
      case "getSlot":
        this.minContext(cfg(0));
        return this.viewSlot;
      case "getBlockHeight":
        this.minContext(cfg(0));
        return this.heightAtSlot.get(this.viewSlot) ?? this.blockHeight;
      case "getEpochInfo": {
        this.minContext(cfg(0));
        const slot = this.viewSlot;
        return {
          absoluteSlot: slot,
          blockHeight: this.heightAtSlot.get(slot) ?? this.blockHeight,
          epoch: Math.floor(slot / 432_000),
          slotIndex: slot % 432_000,
          slotsInEpoch: 432_000,
          transactionCount: this.landed.size,
        };
      }
      case "getLatestBlockhash":
        this.minContext(cfg(0));
        return this.ctx(this.behindBlockhash ?? this.latestBlockhash());
      case "isBlockhashValid": {
        this.minContext(cfg(1));
        const last = this.blockhashes.get(String(params[0]));
        const height = this.heightAtSlot.get(this.viewSlot) ?? this.blockHeight;
        if (cfg(1).commitment === "confirmed" && this.unconfirmedAsks > 0) {
          this.unconfirmedAsks--;
          return this.ctx(false);
        }
        return this.ctx(last !== undefined && height <= last && String(params[0]) === this.svm.latestBlockhash());
      }
      case "getFirstAvailableBlock":
        return this.firstAvailableSlot;
      case "getMinimumBalanceForRentExemption":
        return Number(this.svm.minimumBalanceForRentExemption(BigInt(Number(params[0]))));
      case "getBalance":
        this.minContext(cfg(1));
        return this.ctx(Number(this.lamportsOf(this.key(params[0]))));
      case "getAccountInfo":
        this.minContext(cfg(1));
        return this.ctx(this.accountJson(this.key(params[0]), cfg(1)));
      case "getMultipleAccounts": {
        this.minContext(cfg(1));
        if (!Array.isArray(params[0])) throw new RpcError(-32602, "Invalid params: expected an array of addresses");
        return this.ctx(params[0].map((a) => this.accountJson(this.key(a), cfg(1))));
      }
      case "getTokenAccountsByOwner":
        this.minContext(cfg(2));
        return this.ctx(this.tokenAccountsByOwner(this.key(params[0]), cfg(1), cfg(2)));
      case "simulateTransaction":
        this.minContext(cfg(1));
        return this.ctx(this.simulate(String(params[0]), cfg(1)));
      case "sendTransaction":
        this.minContext(cfg(1));
        return this.send(String(params[0]), cfg(1));
      case "getSignatureStatuses":
        return this.ctx(this.statuses(params[0]));
      case "getTransaction":
        return this.transactionJson(String(params[0]), cfg(1));
      case "getSignaturesForAddress":
        return this.signaturesFor(String(params[0]), cfg(1));
      case "getRecentPrioritizationFees":
        return this.prioritizationFees(params[0]);
      default:
        throw new RpcError(-32601, "Method not found");
    }
  }

  /**
   * getRecentPrioritizationFees as a node answers it: one {slot, prioritizationFee} per recent
   * slot (the node keeps 150), the fee being the lowest that landed in that slot, raised to the
   * lowest fee paid to write-lock any of the given accounts there; at most 128 addresses.
   */
  private prioritizationFees(addresses: unknown): unknown {
    const list = addresses === undefined ? [] : addresses;
    if (!Array.isArray(list)) throw new RpcError(-32602, "Invalid params: expected an array of addresses");
    if (list.length > 128) throw new RpcError(-32602, "Too many inputs provided; max 128");
    const keys = list.map((a) => this.key(a).toBase58());
    return this.recentFees.slice(-150).map((f) => ({
      slot: f.slot,
      prioritizationFee: Math.max(f.fee, ...keys.map((k) => f.accounts?.[k] ?? 0)),
    }));
  }

  private ctx<T>(value: T): { context: { slot: number; apiVersion: string }; value: T } {
    return { context: { slot: this.viewSlot, apiVersion: "2.2.0" }, value };
  }

  private minContext(c: Record<string, unknown>): void {
    const min = c.minContextSlot;
    if (typeof min === "number" && min > this.viewSlot)
      throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: this.viewSlot });
  }

  private key(v: unknown): PublicKey {
    try {
      return new PublicKey(String(v));
    } catch {
      throw new RpcError(-32602, `Invalid param: ${String(v)}`);
    }
  }

  // ---- accounts --------------------------------------------------------------------------------

  private accountJson(address: PublicKey, c: Record<string, unknown>, override?: AccountState | null): unknown {
    const acc = override === undefined ? this.svm.getAccount(address) : override;
    if (!acc || acc.lamports === 0) return null;
    const data = Buffer.from(acc.data);
    const base = {
      executable: acc.executable,
      lamports: Number(acc.lamports),
      owner: acc.owner.toBase58(),
      rentEpoch: 0,
      space: data.length,
    };
    if (c.encoding === "jsonParsed") {
      const parsed = this.parseTokenData(address, acc);
      if (parsed) return { ...base, data: parsed };
    } else if (c.encoding !== "base64" && c.encoding !== undefined) {
      throw new RpcError(-32602, `unsupported encoding in this fake: ${String(c.encoding)}`);
    }
    return { ...base, data: [data.toString("base64"), "base64"] };
  }

  private parseTokenData(address: PublicKey, acc: AccountState): unknown {
    const owner = acc.owner;
    if (!owner.equals(TOKEN_PROGRAM_ID) && !owner.equals(TOKEN_2022_PROGRAM_ID)) return null;
    const program = owner.equals(TOKEN_PROGRAM_ID) ? "spl-token" : "spl-token-2022";
    const info = { ...acc, lamports: Number(acc.lamports), data: Buffer.from(acc.data), owner };
    try {
      if (acc.data.length === 82 || (acc.data.length > ACCOUNT_SIZE && acc.data[ACCOUNT_SIZE] === 1)) {
        const m = unpackMint(address, info, owner);
        const fee = getTransferFeeConfig(m);
        const fees = (f: NonNullable<typeof fee>["newerTransferFee"]) => ({
          epoch: Number(f.epoch),
          maximumFee: Number(f.maximumFee),
          transferFeeBasisPoints: f.transferFeeBasisPoints,
        });
        return {
          program,
          space: acc.data.length,
          parsed: {
            type: "mint",
            info: {
              decimals: m.decimals,
              freezeAuthority: m.freezeAuthority?.toBase58() ?? null,
              mintAuthority: m.mintAuthority?.toBase58() ?? null,
              isInitialized: m.isInitialized,
              supply: m.supply.toString(),
              ...(fee
                ? {
                    extensions: [
                      {
                        extension: "transferFeeConfig",
                        state: {
                          transferFeeConfigAuthority: fee.transferFeeConfigAuthority.toBase58(),
                          withdrawWithheldAuthority: fee.withdrawWithheldAuthority.toBase58(),
                          withheldAmount: Number(fee.withheldAmount),
                          olderTransferFee: fees(fee.olderTransferFee),
                          newerTransferFee: fees(fee.newerTransferFee),
                        },
                      },
                    ],
                  }
                : {}),
            },
          },
        };
      }
      const a = unpackAccount(address, info, owner);
      const decimals = this.decimalsOf(a.mint);
      return {
        program,
        space: acc.data.length,
        parsed: {
          type: "account",
          info: {
            mint: a.mint.toBase58(),
            owner: a.owner.toBase58(),
            tokenAmount: uiAmount(a.amount, decimals),
            state: a.isFrozen ? "frozen" : "initialized",
            isNative: a.isNative,
            ...(a.delegate
              ? { delegate: a.delegate.toBase58(), delegatedAmount: uiAmount(a.delegatedAmount, decimals) }
              : {}),
          },
        },
      };
    } catch {
      return null;
    }
  }

  private decimalsOf(mint: PublicKey): number {
    const acc = this.svm.getAccount(mint);
    return acc ? acc.data[44]! : 0;
  }

  private tokenAccountsByOwner(owner: PublicKey, filter: Record<string, unknown>, c: Record<string, unknown>): unknown {
    const programId = typeof filter.programId === "string" ? filter.programId : null;
    const mint = typeof filter.mint === "string" ? filter.mint : null;
    if (!programId && !mint) throw new RpcError(-32602, "Invalid params: mint or programId required");
    const out: unknown[] = [];
    for (const address of [...this.tokenAccounts].sort()) {
      const pk = new PublicKey(address);
      const acc = this.svm.getAccount(pk);
      const t = acc ? this.tokenAccount(pk, acc) : null;
      if (!acc || !t?.owner.equals(owner)) continue;
      if (programId && acc.owner.toBase58() !== programId) continue;
      if (mint && t.mint.toBase58() !== mint) continue;
      out.push({ pubkey: address, account: this.accountJson(pk, c) });
    }
    return out;
  }

  private tokenAccount(address: PublicKey, acc: AccountState) {
    if (!acc.owner.equals(TOKEN_PROGRAM_ID) && !acc.owner.equals(TOKEN_2022_PROGRAM_ID)) return null;
    if (acc.data.length < ACCOUNT_SIZE || acc.data.length === 82) return null;
    if (acc.data.length > ACCOUNT_SIZE && acc.data[ACCOUNT_SIZE] !== 2) return null;
    try {
      return unpackAccount(address, { ...acc, lamports: Number(acc.lamports), data: Buffer.from(acc.data) }, acc.owner);
    } catch {
      return null;
    }
  }

  // ---- transactions ----------------------------------------------------------------------------

  private decode(b64: string, c: Record<string, unknown>): { tx: VersionedTransaction; raw: Uint8Array } {
    if (c.encoding !== "base64") throw new RpcError(-32602, "this fake accepts base64 transactions only");
    const raw = Buffer.from(b64, "base64");
    try {
      return { tx: VersionedTransaction.deserialize(raw), raw };
    } catch {
      throw new RpcError(-32602, "invalid transaction: failed to deserialize VersionedTransaction");
    }
  }

  private accountKeys(tx: VersionedTransaction): MessageAccountKeys {
    const lookups = tx.message.addressTableLookups.map((l) => {
      const acc = this.svm.getAccount(l.accountKey);
      if (!acc?.owner.equals(ALT_PROGRAM)) throw new RpcError(-32602, "AddressLookupTableNotFound");
      return new AddressLookupTableAccount({
        key: l.accountKey,
        state: AddressLookupTableAccount.deserialize(Buffer.from(acc.data)),
      });
    });
    return tx.message.getAccountKeys({ addressLookupTableAccounts: lookups });
  }

  private signaturesValid(tx: VersionedTransaction): boolean {
    const message = Buffer.from(tx.message.serialize());
    const n = tx.message.header.numRequiredSignatures;
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

  private simulate(b64: string, c: Record<string, unknown>): unknown {
    const { tx } = this.decode(b64, c);
    if (c.sigVerify === true && c.replaceRecentBlockhash === true)
      throw new RpcError(-32602, "Invalid params: sigVerify may not be used with replaceRecentBlockhash");
    if (c.sigVerify === true && !this.signaturesValid(tx))
      return { err: "SignatureFailure", logs: [], accounts: null, unitsConsumed: 0 };
    let replacement: { blockhash: string; lastValidBlockHeight: number } | undefined;
    if (c.replaceRecentBlockhash === true) {
      replacement = this.latestBlockhash();
      tx.message.recentBlockhash = replacement.blockhash;
    }
    const r = this.svm.simulateTransaction(tx);
    const failed = typeof (r as any).err === "function";
    const meta = failed ? (r as { meta(): { logs(): string[]; computeUnitsConsumed(): bigint } }).meta() : r.meta();
    const logs = meta.logs();
    const unitsConsumed = Number(meta.computeUnitsConsumed());
    const accountsCfg = (c.accounts ?? null) as { addresses?: unknown; encoding?: unknown } | null;
    let accounts: unknown[] | null = null;
    if (accountsCfg && Array.isArray(accountsCfg.addresses) && !failed) {
      const post = new Map<string, AccountState>();
      for (const [k, a] of (r as { postAccounts(): [PublicKey, LiteAccount][] }).postAccounts())
        post.set(k.toBase58(), toState(a));
      const enc = { encoding: accountsCfg.encoding ?? "base64" };
      accounts = accountsCfg.addresses.map((a) => {
        const pk = this.key(a);
        return this.accountJson(pk, enc, post.get(pk.toBase58()));
      });
    }
    return {
      err: failed ? transactionErrorJson((r as any).err()) : null,
      logs,
      accounts,
      unitsConsumed,
      returnData: null,
      ...(replacement ? { replacementBlockhash: replacement } : {}),
    };
  }

  private send(b64: string, c: Record<string, unknown>): string {
    const { tx } = this.decode(b64, c);
    const signature = bs58.encode(tx.signatures[0]!);
    this.sends.push(signature);
    if (!this.signaturesValid(tx)) throw new RpcError(-32003, "Transaction signature verification failure");
    const mode = this.sendModes.shift() ?? { kind: "land" };
    if (this.landed.has(signature)) return signature; // a rebroadcast of a landed transaction
    if (mode.kind === "drop") return signature;
    if (mode.kind === "error") {
      const e = mode.error ?? { code: -32005, message: "Node is unhealthy" };
      throw new RpcError(e.code, e.message);
    }
    if (c.skipPreflight !== true) {
      const sim = this.simulate(b64, { encoding: "base64" }) as { err: unknown; logs: string[] };
      if (sim.err)
        throw new RpcError(-32002, `Transaction simulation failed: ${JSON.stringify(sim.err)}`, {
          err: sim.err,
          logs: sim.logs,
        });
    }
    this.land(tx);
    if (mode.kind === "error-but-land") {
      const e = mode.error ?? { code: -32603, message: "Internal error" };
      throw new RpcError(e.code, e.message);
    }
    return signature;
  }

  /** Runs a transaction on litesvm and records it with its balances, if it landed at all. */
  private land(tx: VersionedTransaction): LandedTx {
    const signature = bs58.encode(tx.signatures[0]!);
    const keys = this.accountKeys(tx);
    const all = keys.keySegments().flat();
    const snapshot = () => all.map((k) => this.svm.getAccount(k));
    const pre = snapshot();
    const r = this.svm.sendTransaction(tx);
    const errJson = typeof (r as any).err === "function" ? transactionErrorJson((r as any).err()) : null;
    const meta = errJson ? (r as { meta(): { logs(): string[] } }).meta() : (r as { logs(): string[] });
    const post = snapshot();
    const result: LandedTx = {
      signature,
      slot: this.slot,
      blockHeight: this.blockHeight,
      err: errJson,
      fee: feeOf(tx),
      logs: meta.logs(),
      raw: tx.serialize(),
      tx,
      keys: {
        static: keys.staticAccountKeys.map(String),
        writable: (keys.accountKeysFromLookups?.writable ?? []).map(String),
        readonly: (keys.accountKeysFromLookups?.readonly ?? []).map(String),
      },
      preBalances: pre.map((a) => BigInt(a?.lamports ?? 0)),
      postBalances: post.map((a) => BigInt(a?.lamports ?? 0)),
      preTokenBalances: this.tokenBalances(all, pre),
      postTokenBalances: this.tokenBalances(all, post),
    };
    if (errJson && !landedDespiteError(errJson)) return result; // refused before execution: not landed
    for (let i = 0; i < all.length; i++)
      if (post[i] && this.tokenAccount(all[i]!, toState(post[i]!))) this.track(all[i]!);
    this.landed.set(signature, result);
    return result;
  }

  private tokenBalances(keys: PublicKey[], accounts: Array<LiteAccountInfo | null>): unknown[] {
    const out: unknown[] = [];
    keys.forEach((k, accountIndex) => {
      const acc = accounts[accountIndex];
      const t = acc ? this.tokenAccount(k, toState(acc)) : null;
      if (!acc || !t) return;
      out.push({
        accountIndex,
        mint: t.mint.toBase58(),
        owner: t.owner.toBase58(),
        programId: acc.owner.toBase58(),
        uiTokenAmount: uiAmount(t.amount, this.decimalsOf(t.mint)),
      });
    });
    return out;
  }

  /** getSignatureStatuses has no minContextSlot: its answer's context slot tells how current it is. */
  private statuses(sigs: unknown): unknown[] {
    if (!Array.isArray(sigs) || sigs.length > 256) throw new RpcError(-32602, "Invalid params: 1 to 256 signatures");
    return sigs.map((s) => {
      const t = this.withholdConfirmations ? undefined : this.landed.get(String(s));
      if (!t || t.slot > this.viewSlot) return null; // a lagging node has not seen it yet
      if (t.slot < this.firstAvailableSlot) return null; // pruned from this node's history
      const final = this.finalizedOnly || this.viewSlot - t.slot >= 32;
      return {
        slot: t.slot,
        confirmations: final ? null : this.viewSlot - t.slot,
        err: t.err,
        status: t.err ? { Err: t.err } : { Ok: null },
        confirmationStatus: final ? "finalized" : "confirmed",
      };
    });
  }

  /** Landed transactions naming the address among their keys, newest first (limit ≤ 1000, until, before). */
  private signaturesFor(address: string, c: Record<string, unknown>): unknown[] {
    const limit = c.limit === undefined ? 1000 : Number(c.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RpcError(-32602, "Invalid limit; max 1000");
    if (c.commitment === "processed")
      throw new RpcError(-32602, "Method does not support commitment below `confirmed`");
    const seen = this.withholdConfirmations ? [] : [...this.landed.values()];
    const touching = seen
      .filter((t) => t.slot <= this.viewSlot)
      .filter((t) => [...t.keys.static, ...t.keys.writable, ...t.keys.readonly].includes(address))
      .reverse(); // landing order, newest first
    let from = 0;
    if (typeof c.before === "string") from = touching.findIndex((t) => t.signature === c.before) + 1 || touching.length;
    const out: unknown[] = [];
    for (const t of touching.slice(from)) {
      if (t.signature === c.until || out.length >= limit) break;
      const depth = this.viewSlot - t.slot;
      out.push({
        signature: t.signature,
        slot: t.slot,
        err: t.err,
        memo: null,
        blockTime: 1_767_225_600 + t.slot,
        confirmationStatus: this.finalizedOnly || depth >= 32 ? "finalized" : "confirmed",
      });
    }
    return out;
  }

  private transactionJson(signature: string, c: Record<string, unknown>): unknown {
    const t = this.withholdConfirmations ? undefined : this.landed.get(signature);
    if (!t || t.slot > this.viewSlot || t.slot < this.firstAvailableSlot) return null;
    if (t.tx.version === 0 && c.maxSupportedTransactionVersion !== 0)
      throw new RpcError(
        -32015,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    if (c.encoding !== undefined && c.encoding !== "json")
      throw new RpcError(-32602, "this fake answers encoding json only");
    const m = t.tx.message;
    return {
      slot: t.slot,
      blockTime: 1_767_225_600 + t.slot,
      version: t.tx.version,
      meta: {
        err: t.err,
        status: t.err ? { Err: t.err } : { Ok: null },
        fee: Number(t.fee),
        preBalances: t.preBalances.map(Number),
        postBalances: t.postBalances.map(Number),
        preTokenBalances: t.preTokenBalances,
        postTokenBalances: t.postTokenBalances,
        logMessages: t.logs,
        innerInstructions: [],
        loadedAddresses: { writable: t.keys.writable, readonly: t.keys.readonly },
        rewards: [],
      },
      transaction: {
        signatures: t.tx.signatures.map((s) => bs58.encode(s)),
        message: {
          header: m.header,
          accountKeys: t.keys.static,
          recentBlockhash: m.recentBlockhash,
          instructions: m.compiledInstructions.map((ix) => ({
            programIdIndex: ix.programIdIndex,
            accounts: ix.accountKeyIndexes,
            data: bs58.encode(ix.data),
            stackHeight: null,
          })),
          addressTableLookups: m.addressTableLookups.map((l) => ({
            accountKey: l.accountKey.toBase58(),
            writableIndexes: l.writableIndexes,
            readonlyIndexes: l.readonlyIndexes,
          })),
        },
      },
    };
  }
}

interface AccountState {
  lamports: bigint | number;
  data: Uint8Array;
  owner: PublicKey;
  executable: boolean;
}
interface LiteAccountInfo {
  lamports: number | bigint;
  data: Uint8Array;
  owner: PublicKey;
  executable: boolean;
}
interface LiteAccount {
  lamports(): bigint;
  data(): Uint8Array;
  owner(): Uint8Array;
  executable(): boolean;
}

function toState(a: LiteAccountInfo | LiteAccount): AccountState & { lamports: bigint } {
  if (typeof (a as LiteAccount).lamports === "function") {
    const l = a as LiteAccount;
    return { lamports: l.lamports(), data: l.data(), owner: new PublicKey(l.owner()), executable: l.executable() };
  }
  const i = a as LiteAccountInfo;
  return { lamports: BigInt(i.lamports), data: i.data, owner: i.owner, executable: i.executable };
}

function uiAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, "0");
  const ui = decimals ? `${s.slice(0, -decimals)}.${s.slice(-decimals)}`.replace(/\.?0+$/, "") : s;
  return { amount: amount.toString(), decimals, uiAmount: Number(ui), uiAmountString: ui };
}

/** 5000 lamports per signature plus compute-unit price × limit (the runtime's fee). */
function feeOf(tx: VersionedTransaction): bigint {
  const m = tx.message;
  const budget = (ix: { programIdIndex: number }) =>
    m.staticAccountKeys[ix.programIdIndex]?.toBase58() === COMPUTE_BUDGET;
  let limit = 200_000n * BigInt(m.compiledInstructions.filter((ix) => !budget(ix)).length);
  let microPrice = 0n;
  for (const ix of m.compiledInstructions) {
    if (!budget(ix)) continue;
    const d = Buffer.from(ix.data);
    if (d[0] === 2) limit = BigInt(d.readUInt32LE(1));
    if (d[0] === 3) microPrice = d.readBigUInt64LE(1);
  }
  return SIGNATURE_FEE * BigInt(m.header.numRequiredSignatures) + (microPrice * limit + 999_999n) / 1_000_000n;
}

export async function startLiteSvmRpc(): Promise<LiteSvmRpc> {
  return new LiteSvmRpc().start();
}
