import {
  AccountState,
  AuthorityType,
  createApproveCheckedInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createInitializeDefaultAccountStateInstruction,
  createInitializeMint2Instruction,
  createInitializePausableConfigInstruction,
  createInitializePermanentDelegateInstruction,
  createInitializeTransferFeeConfigInstruction,
  createInitializeTransferHookInstruction,
  createMintToInstruction,
  createSetAuthorityInstruction,
  createSetTransferFeeInstruction,
  createSyncNativeInstruction,
  createThawAccountInstruction,
  createTransferCheckedInstruction,
  ExtensionType,
  getAssociatedTokenAddressSync,
  getMintLen,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import {
  AddressLookupTableAccount,
  ComputeBudgetProgram,
  TransactionInstruction as Ix,
  Keypair,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { SwapV2 } from "./chain-aggregator-v2.ts";
import { type RouteArgs, routeInstruction } from "./jupiter-program.ts";
import type { LiteSvmRpc } from "./litesvm-rpc.ts";
import { LocalServer } from "./local-server.ts";

// A fake Jupiter (Swap API v1 /swap/v1/quote and /swap/v1/swap, Price API v3 /price/v3) on
// 127.0.0.1 whose swap transactions are REAL: they execute on the litesvm chain of LiteSvmRpc and
// move real lamports and tokens. Each pool is a fixed-price market for one mint owned by a pool
// keypair: its token account (and its wSOL account) approve the user's wallet as delegate when
// /swap is asked, so the swap needs only the wallet's signature, like an aggregator's.
//
//   buy:  createAssociatedTokenAccountIdempotent(wallet, wSOL), SOL wallet → its wSOL account,
//         syncNative, createAssociatedTokenAccountIdempotent(wallet, mint), transferChecked(wallet
//         wSOL → pool wSOL), transferChecked(pool token account → wallet ATA, authority: wallet as
//         delegate), closeAccount(wSOL) (SOL goes through wSOL, as Jupiter routes it)
//   sell: createAssociatedTokenAccountIdempotent(wallet, wSOL), transferChecked(wallet ATA → pool),
//         transferChecked(pool wSOL → wallet wSOL, authority: wallet as delegate), closeAccount(wSOL)
//
// Pool accounts sit in an address lookup table, so the transaction is a v0 message that needs
// its lookup table resolved. `mode` "hostile" adds a SOL transfer from the wallet to a third
// address; "foreign-program" adds a Memo program instruction (a program no allow-list knows);
// "skim" swaps 1 % less and sends that 1 % to the thief with the wallet flagged isSigner:false.
// A Token-2022 mint can carry a transfer fee: quotes are net of it (what the wallet receives).

export const MEMO_PROGRAM = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const ALT_PROGRAM = new PublicKey("AddressLookupTab1e1111111111111111111111111");
const SOL = NATIVE_MINT.toBase58();
const COMPUTE_UNIT_LIMIT = 200_000;

export interface PoolOptions {
  decimals?: number;
  /** Lamports per whole token. */
  lamportsPerToken: bigint;
  token2022?: boolean;
  transferFeeBps?: number;
  maxTransferFee?: bigint;
  freezeAuthority?: boolean;
  /** Keep the mint authority (else revoked after minting the pool's supply). */
  keepMintAuthority?: boolean;
  /** Price API v3 leaves the mint out (a brand-new token). */
  unpriced?: boolean;
  /**
   * Token-2022 mint extensions held by the pool owner (token2022 needed): a permanent delegate, a
   * pause authority, a transfer hook (its program, or null: an authority that may set one later;
   * `authority: null` leaves it without one, so nobody can change it), new accounts frozen by
   * default (the pool's own are thawed; implies a freeze authority).
   */
  permanentDelegate?: boolean;
  pausable?: boolean;
  transferHook?: { program: PublicKey | null; authority?: null };
  defaultFrozen?: boolean;
}

export interface Pool {
  mint: PublicKey;
  decimals: number;
  programId: PublicKey;
  owner: Keypair;
  tokenAccount: PublicKey;
  wsolAccount: PublicKey;
  lookupTable: PublicKey;
  opts: PoolOptions;
}

/**
 * "skim" (issue 32 finding 1): the route swaps 1 % less than asked and adds
 * SystemProgram.transfer(wallet → thief, that 1 %) with the wallet flagged isSigner:false in the
 * answer's JSON (/build); the SOL that leaves stays within the input, the output within the floor.
 */
export type SwapMode = "honest" | "hostile" | "foreign-program" | "skim";

/** The share of a skimmed swap's SOL side that goes to the thief ("skim" mode). */
export const SKIM_BPS = 100n;

/**
 * What a hostile aggregator can do inside well-formed answers (all off by default):
 * `threshold` replaces the quote's otherAmountThreshold; `quoteBps` quotes (and routes) only that
 * share of the fair output (a bad price); `deliverBps` makes the route deliver only that share of
 * what was quoted; `slippageBps` echoes another slippage than asked; `lastValidBlockHeight`
 * replaces the swap answer's height (a stale one); `keepWsolOpen` and `alsoOpens` leave accounts
 * the taker funded open after a v2 route (rent that is not the swap's SOL).
 */
export interface Tamper {
  threshold?: string;
  quoteBps?: number;
  deliverBps?: number;
  slippageBps?: number;
  lastValidBlockHeight?: number;
  /** Swap API v2 routes: no cleanup, so the taker's wSOL account stays open (its rent in it). */
  keepWsolOpen?: boolean;
  /** Swap API v2 routes also create the taker's associated token account of this pool's mint (an intermediate hop's) and leave it open. */
  alsoOpens?: Pool;
  /**
   * Laid over the Jupiter `route` instruction's data (jupiter-program.ts) whatever the JSON says:
   * `{ slippageBps: 10_000 }` is a route whose on-chain minimum is nothing.
   */
  route?: Partial<RouteArgs>;
}

export class ChainAggregator extends LocalServer {
  readonly pools = new Map<string, Pool>();
  mode: SwapMode = "honest";
  tamper: Tamper = {};
  /** The third address a hostile swap pays, and how much. */
  readonly thief = Keypair.generate().publicKey;
  hostileLamports = 50_000_000n;
  solUsd = 150;
  readonly quotes = new Map<string, Record<string, unknown>>();
  /** True: the Swap API v1 endpoints answer 404, as after Jupiter retires them. */
  v1Retired = false;
  /** Swap API v2 (/swap/v2/build, /order, /execute): chain-aggregator-v2.ts. */
  readonly v2: SwapV2 = new SwapV2(this);
  readonly swapRequests: Array<Record<string, unknown>> = [];
  /** Every request: method and path (v1, v2 and prices), in order. */
  readonly requests: Array<{ method: string; path: string }> = [];
  /** Price API v3 requests answered (a monitor tick prices its positions with one). */
  priceRequests = 0;
  private nonce = 0;

  constructor(readonly chain: LiteSvmRpc) {
    super();
  }

  /** Creates a mint (real instructions), a pool holding `supply` of it and `solLiquidity` of wSOL. */
  addPool(opts: PoolOptions, supply = 1_000_000_000_000_000n, solLiquidity = 100_000_000_000n): Pool {
    const owner = Keypair.generate();
    const mintKp = Keypair.generate();
    const decimals = opts.decimals ?? 6;
    const programId = opts.token2022 ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID;
    this.chain.airdrop(owner.publicKey, solLiquidity + 10_000_000_000n);
    const extensions = [
      ...(opts.transferFeeBps !== undefined ? [ExtensionType.TransferFeeConfig] : []),
      ...(opts.permanentDelegate ? [ExtensionType.PermanentDelegate] : []),
      ...(opts.pausable ? [ExtensionType.PausableConfig] : []),
      ...(opts.transferHook ? [ExtensionType.TransferHook] : []),
      ...(opts.defaultFrozen ? [ExtensionType.DefaultAccountState] : []),
    ];
    const space = getMintLen(extensions);
    const lamports = this.chain.svm.minimumBalanceForRentExemption(BigInt(space));
    const tokenAccount = getAssociatedTokenAddressSync(mintKp.publicKey, owner.publicKey, false, programId);
    const wsolAccount = getAssociatedTokenAddressSync(NATIVE_MINT, owner.publicKey, false, TOKEN_PROGRAM_ID);
    const ixs: TransactionInstruction[] = [
      SystemProgram.createAccount({
        fromPubkey: owner.publicKey,
        newAccountPubkey: mintKp.publicKey,
        space,
        lamports: Number(lamports),
        programId,
      }),
    ];
    if (opts.transferFeeBps !== undefined)
      ixs.push(
        createInitializeTransferFeeConfigInstruction(
          mintKp.publicKey,
          owner.publicKey,
          owner.publicKey,
          opts.transferFeeBps,
          opts.maxTransferFee ?? 1_000_000_000_000n,
          programId,
        ),
      );
    const o = owner.publicKey;
    const m = mintKp.publicKey;
    if (opts.permanentDelegate) ixs.push(createInitializePermanentDelegateInstruction(m, o, programId));
    if (opts.pausable) ixs.push(createInitializePausableConfigInstruction(m, o, programId));
    if (opts.transferHook)
      ixs.push(
        createInitializeTransferHookInstruction(
          m,
          opts.transferHook.authority === null ? PublicKey.default : o,
          opts.transferHook.program ?? PublicKey.default,
          programId,
        ),
      );
    if (opts.defaultFrozen) ixs.push(createInitializeDefaultAccountStateInstruction(m, AccountState.Frozen, programId));
    ixs.push(
      createInitializeMint2Instruction(
        mintKp.publicKey,
        decimals,
        owner.publicKey,
        opts.freezeAuthority || opts.defaultFrozen ? owner.publicKey : null,
        programId,
      ),
      createAssociatedTokenAccountIdempotentInstruction(
        owner.publicKey,
        tokenAccount,
        owner.publicKey,
        mintKp.publicKey,
        programId,
      ),
      ...(opts.defaultFrozen ? [createThawAccountInstruction(tokenAccount, m, o, [], programId)] : []),
      createMintToInstruction(mintKp.publicKey, tokenAccount, owner.publicKey, supply, [], programId),
    );
    this.run(owner, ixs, [mintKp]);
    const revoke = opts.keepMintAuthority
      ? []
      : [
          createSetAuthorityInstruction(
            mintKp.publicKey,
            owner.publicKey,
            AuthorityType.MintTokens,
            null,
            [],
            programId,
          ),
        ];
    this.run(owner, [
      ...revoke,
      createAssociatedTokenAccountIdempotentInstruction(owner.publicKey, wsolAccount, owner.publicKey, NATIVE_MINT),
      SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: wsolAccount, lamports: solLiquidity }),
      createSyncNativeInstruction(wsolAccount),
    ]);
    const lookupTable = Keypair.generate().publicKey;
    this.writeLookupTable(lookupTable, [
      owner.publicKey,
      tokenAccount,
      wsolAccount,
      mintKp.publicKey,
      NATIVE_MINT,
      programId,
    ]);
    const pool = { mint: mintKp.publicKey, decimals, programId, owner, tokenAccount, wsolAccount, lookupTable, opts };
    this.pools.set(pool.mint.toBase58(), pool);
    return pool;
  }

  /**
   * The mint's fee authority schedules a new Token-2022 transfer fee (in force from a later epoch,
   * as on mainnet; quotes keep the fee in force, pool.opts.transferFeeBps).
   */
  setTransferFee(pool: Pool, bps: number): void {
    this.run(pool.owner, [
      createSetTransferFeeInstruction(
        pool.mint,
        pool.owner.publicKey,
        [],
        bps,
        pool.opts.maxTransferFee ?? 1_000_000_000_000n,
        pool.programId,
      ),
    ]);
  }

  /** Signs with the pool owner and executes on the chain at once (liquidity-provider set-up). */
  run(payer: Keypair, ixs: TransactionInstruction[], extra: Keypair[] = []): void {
    // A unique compute-unit limit keeps two identical set-up transactions from sharing a signature.
    const unique = ComputeBudgetProgram.setComputeUnitLimit({ units: 400_000 + this.nonce++ });
    const msg = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: this.chain.latestBlockhash().blockhash,
      instructions: [unique, ...ixs],
    }).compileToV0Message();
    const tx = new VersionedTransaction(msg);
    tx.sign([payer, ...extra]);
    this.chain.execute(tx);
  }

  /**
   * The pool lets `wallet` take exactly `poolMoves` of what it pays out (the single-signer trick):
   * its token on a buy, its wSOL on a sell. Shared by the v1 swap and v2's /build and /order.
   */
  approve(pool: Pool, wallet: PublicKey, poolMoves: bigint, buy: boolean): void {
    this.run(pool.owner, [
      buy
        ? createApproveCheckedInstruction(
            pool.tokenAccount,
            pool.mint,
            wallet,
            pool.owner.publicKey,
            poolMoves,
            pool.decimals,
            [],
            pool.programId,
          )
        : createApproveCheckedInstruction(pool.wsolAccount, NATIVE_MINT, wallet, pool.owner.publicKey, poolMoves, 9),
    ]);
  }

  /** An active address lookup table (its on-chain layout: 56-byte meta, then the addresses). */
  writeLookupTable(address: PublicKey, addresses: PublicKey[]): void {
    const data = Buffer.alloc(56 + 32 * addresses.length);
    data.writeUInt32LE(1, 0); // ProgramState::LookupTable
    data.writeBigUInt64LE(0xffffffffffffffffn, 4); // deactivation slot: active
    data.writeBigUInt64LE(0n, 12); // last extended slot (long before now, so every entry is usable)
    data.writeUInt8(0, 20);
    data.writeUInt8(0, 21); // no authority: frozen
    addresses.forEach((a, i) => {
      data.set(a.toBytes(), 56 + 32 * i);
    });
    this.chain.svm.setAccount(address, {
      lamports: Number(this.chain.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      data,
      owner: ALT_PROGRAM,
      executable: false,
    });
  }

  // ---- HTTP ------------------------------------------------------------------------------------

  protected async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    this.requests.push({ method: req.method, path: url.pathname });
    if (req.method === "GET" && url.pathname === "/price/v3") return this.price(url);
    if (url.pathname.startsWith("/swap/v2/")) return this.v2.handle(req, url);
    if (this.v1Retired && url.pathname.startsWith("/swap/v1/"))
      return Response.json({ error: "Not found" }, { status: 404 });
    if (req.method === "GET" && url.pathname === "/swap/v1/quote") return this.quote(url);
    if (req.method === "POST" && url.pathname === "/swap/v1/swap") return this.swap(await req.json().catch(() => null));
    return Response.json({ error: "Not found" }, { status: 404 });
  }

  private price(url: URL): Response {
    this.priceRequests++;
    const ids = (url.searchParams.get("ids") ?? "").split(",").filter(Boolean);
    if (ids.length === 0 || ids.length > 50) return Response.json({ error: "ids: 1 to 50 mints" }, { status: 400 });
    const out: Record<string, unknown> = {};
    for (const id of ids) {
      if (id === SOL) {
        out[id] = { usdPrice: this.solUsd, blockId: this.chain.slot, decimals: 9, priceChange24h: 0 };
        continue;
      }
      const p = this.pools.get(id);
      if (!p || p.opts.unpriced) continue;
      const usdPrice = (Number(p.opts.lamportsPerToken) / 1e9) * this.solUsd;
      out[id] = { usdPrice, blockId: this.chain.slot, decimals: p.decimals, priceChange24h: 0 };
    }
    return Response.json(out);
  }

  private quote(url: URL): Response {
    const r = this.priceQuote(url.searchParams);
    if (r instanceof Response) return r;
    this.quotes.set(JSON.stringify(r.quote), r.stored);
    return Response.json(r.quote);
  }

  /** The quote document for these query parameters, or the API's 400 answer. */
  priceQuote(
    q: URLSearchParams,
  ): Response | { quote: Record<string, unknown>; stored: Record<string, unknown>; pool: Pool; poolMoves: bigint } {
    const inputMint = q.get("inputMint") ?? "";
    const outputMint = q.get("outputMint") ?? "";
    const amountText = q.get("amount") ?? "";
    const slippageBps = Number(q.get("slippageBps") ?? "50");
    if (!/^[1-9]\d*$/.test(amountText) || !Number.isInteger(slippageBps))
      return Response.json({ error: "Invalid request", errorCode: "INVALID_REQUEST" }, { status: 400 });
    if ((q.get("swapMode") ?? "ExactIn") !== "ExactIn")
      return Response.json(
        { error: "ExactOut is not offered by this fake", errorCode: "INVALID_REQUEST" },
        { status: 400 },
      );
    const buy = inputMint === SOL;
    const pool = this.pools.get(buy ? outputMint : inputMint);
    if (!pool || (buy ? false : outputMint !== SOL))
      return Response.json({ error: "The token is not tradable", errorCode: "TOKEN_NOT_TRADABLE" }, { status: 400 });
    const amount = BigInt(amountText);
    const unit = 10n ** BigInt(pool.decimals);
    let outAmount: bigint;
    let poolMoves: bigint; // gross tokens (buy) or lamports (sell) leaving the pool
    const share = (v: bigint) =>
      this.tamper.quoteBps === undefined ? v : (v * BigInt(this.tamper.quoteBps)) / 10_000n;
    if (buy) {
      poolMoves = share((amount * unit) / pool.opts.lamportsPerToken);
      outAmount = poolMoves - this.transferFee(pool, poolMoves);
    } else {
      const received = amount - this.transferFee(pool, amount);
      poolMoves = share((received * pool.opts.lamportsPerToken) / unit);
      outAmount = poolMoves;
    }
    if (outAmount <= 0n)
      return Response.json({ error: "No routes found", errorCode: "COULD_NOT_FIND_ANY_ROUTE" }, { status: 400 });
    const threshold = this.tamper.threshold ?? ((outAmount * BigInt(10_000 - slippageBps)) / 10_000n).toString();
    const quote = {
      inputMint,
      inAmount: amount.toString(),
      outputMint,
      outAmount: outAmount.toString(),
      otherAmountThreshold: threshold,
      swapMode: "ExactIn",
      slippageBps: this.tamper.slippageBps ?? slippageBps,
      platformFee: null,
      priceImpactPct: "0",
      routePlan: [
        {
          swapInfo: {
            ammKey: pool.tokenAccount.toBase58(),
            label: "LiteSVM Pool",
            inputMint,
            outputMint,
            inAmount: amount.toString(),
            outAmount: outAmount.toString(),
            feeAmount: "0",
            feeMint: inputMint,
          },
          percent: 100,
        },
      ],
      contextSlot: this.chain.slot,
      timeTaken: 0.001,
    };
    return { quote, stored: { ...quote, poolMoves: poolMoves.toString() }, pool, poolMoves };
  }

  /**
   * The route's Jupiter `route` instruction, after its transfers: quoted_out_amount the JSON's
   * outAmount and a slippage whose minimum the route meets (the JSON's threshold, or what a
   * tampered route delivers: a hostile aggregator writes bytes its own route passes), unless
   * `tamper.route` writes otherwise.
   */
  routeOf(
    pool: Pool,
    wallet: PublicKey,
    buy: boolean,
    quote: { outAmount?: unknown; otherAmountThreshold?: unknown },
    inAmount: bigint,
    poolMoves: bigint,
  ): TransactionInstruction {
    const out = BigInt(String(quote.outAmount));
    const arrives = buy ? poolMoves - this.transferFee(pool, poolMoves) : poolMoves;
    const threshold = BigInt(String(quote.otherAmountThreshold));
    const least = arrives < threshold ? arrives : threshold;
    const slippage = out > 0n && least < out ? ((out - least) * 10_000n + out - 1n) / out : 0n;
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, wallet);
    const ata = getAssociatedTokenAddressSync(pool.mint, wallet, false, pool.programId);
    return routeInstruction(
      {
        tokenProgram: buy ? pool.programId : TOKEN_PROGRAM_ID,
        user: wallet,
        source: buy ? wsol : ata,
        destination: buy ? ata : wsol,
        destinationMint: buy ? pool.mint : NATIVE_MINT,
      },
      {
        inAmount,
        quotedOutAmount: out,
        slippageBps: Number(slippage > 10_000n ? 10_000n : slippage),
        platformFeeBps: 0,
        ...this.tamper.route,
      },
    );
  }

  /** What the route really moves out of the pool for a quoted amount (`tamper.deliverBps`). */
  delivered(quoted: bigint): bigint {
    return this.tamper.deliverBps === undefined ? quoted : (quoted * BigInt(this.tamper.deliverBps)) / 10_000n;
  }

  /** Token-2022 transfer fee on `amount` (ceil(amount × bps / 10000), capped), 0 without one. */
  transferFee(pool: Pool, amount: bigint): bigint {
    const bps = pool.opts.transferFeeBps;
    if (bps === undefined || bps === 0) return 0n;
    const fee = (amount * BigInt(bps) + 9_999n) / 10_000n;
    const max = pool.opts.maxTransferFee ?? 1_000_000_000_000n;
    return fee > max ? max : fee;
  }

  private swap(body: unknown): Response {
    const b = (body ?? {}) as Record<string, unknown>;
    this.swapRequests.push(b);
    const stored = this.quotes.get(JSON.stringify(b.quoteResponse));
    if (!stored) return Response.json({ error: "Invalid quoteResponse", errorCode: "INVALID_QUOTE" }, { status: 400 });
    let wallet: PublicKey;
    try {
      wallet = new PublicKey(String(b.userPublicKey));
    } catch {
      return Response.json({ error: "Invalid userPublicKey", errorCode: "INVALID_REQUEST" }, { status: 400 });
    }
    const buy = stored.inputMint === SOL;
    const pool = this.pools.get(String(buy ? stored.outputMint : stored.inputMint))!;
    const amount = BigInt(String(stored.inAmount));
    const quoted = this.delivered(BigInt(String(stored.poolMoves)));
    // "skim": a buy swaps 1 % less of its input, a sale pays 1 % of its SOL; that goes to the thief.
    const skim = this.mode === "skim";
    const skimLamports = skim ? ((buy ? amount : quoted) * SKIM_BPS) / 10_000n : 0n;
    const poolMoves = skim && buy ? quoted - (quoted * SKIM_BPS) / 10_000n : quoted;
    const fee = priorityFeeOf(b.prioritizationFeeLamports);
    const microLamports = (fee * 1_000_000n) / BigInt(COMPUTE_UNIT_LIMIT);
    // The pool lets the wallet take exactly this swap's amount (the single-signer trick).
    this.approve(pool, wallet, poolMoves, buy);
    const ixs: TransactionInstruction[] = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: COMPUTE_UNIT_LIMIT }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
    ];
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, wallet);
    const ata = getAssociatedTokenAddressSync(pool.mint, wallet, false, pool.programId);
    if (buy) {
      // As Jupiter routes SOL: wrapped into the wallet's wSOL account, paid from it, closed after.
      const swapped = amount - skimLamports;
      ixs.push(
        createAssociatedTokenAccountIdempotentInstruction(wallet, wsol, wallet, NATIVE_MINT),
        SystemProgram.transfer({ fromPubkey: wallet, toPubkey: wsol, lamports: swapped }),
        createSyncNativeInstruction(wsol),
        createAssociatedTokenAccountIdempotentInstruction(wallet, ata, wallet, pool.mint, pool.programId),
        createTransferCheckedInstruction(wsol, NATIVE_MINT, pool.wsolAccount, wallet, swapped, 9),
        createTransferCheckedInstruction(
          pool.tokenAccount,
          pool.mint,
          ata,
          wallet,
          poolMoves,
          pool.decimals,
          [],
          pool.programId,
        ),
        // A skimming route's bytes still name the whole input (what the JSON promised).
        this.routeOf(pool, wallet, buy, stored, amount, poolMoves),
        createCloseAccountInstruction(wsol, wallet, wallet),
      );
    } else {
      ixs.push(
        createAssociatedTokenAccountIdempotentInstruction(wallet, wsol, wallet, NATIVE_MINT),
        createTransferCheckedInstruction(
          ata,
          pool.mint,
          pool.tokenAccount,
          wallet,
          amount,
          pool.decimals,
          [],
          pool.programId,
        ),
        createTransferCheckedInstruction(pool.wsolAccount, NATIVE_MINT, wsol, wallet, poolMoves, 9),
        this.routeOf(pool, wallet, buy, stored, amount, poolMoves),
        createCloseAccountInstruction(wsol, wallet, wallet),
      );
    }
    if (this.mode === "hostile")
      ixs.push(SystemProgram.transfer({ fromPubkey: wallet, toPubkey: this.thief, lamports: this.hostileLamports }));
    if (skim) ixs.push(skimTransfer(wallet, this.thief, skimLamports));
    if (this.mode === "foreign-program")
      ixs.push(
        new Ix({
          programId: MEMO_PROGRAM,
          keys: [{ pubkey: wallet, isSigner: true, isWritable: false }],
          data: Buffer.from("route"),
        }),
      );
    const table = this.chain.svm.getAccount(pool.lookupTable)!;
    const alt = new AddressLookupTableAccount({
      key: pool.lookupTable,
      state: AddressLookupTableAccount.deserialize(Buffer.from(table.data)),
    });
    const { blockhash, lastValidBlockHeight: height } = this.chain.latestBlockhash();
    const lastValidBlockHeight = this.tamper.lastValidBlockHeight ?? height;
    const message = new TransactionMessage({
      payerKey: wallet,
      recentBlockhash: blockhash,
      instructions: ixs,
    }).compileToV0Message([alt]);
    return Response.json({
      swapTransaction: Buffer.from(new VersionedTransaction(message).serialize()).toString("base64"),
      lastValidBlockHeight,
      prioritizationFeeLamports: Number(fee),
      computeUnitLimit: COMPUTE_UNIT_LIMIT,
      prioritizationType: {
        computeBudget: { microLamports: Number(microLamports), estimatedMicroLamports: Number(microLamports) },
      },
      dynamicSlippageReport: null,
      simulationError: null,
    });
  }
}

/**
 * SystemProgram.transfer(from → to) with `from` flagged isSigner:false, as a hostile answer's JSON
 * describes it; the compiled message still has `from` sign it (it is the fee payer).
 */
export function skimTransfer(from: PublicKey, to: PublicKey, lamports: bigint): TransactionInstruction {
  const ix = SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports });
  ix.keys[0]!.isSigner = false;
  return ix;
}

/** Swap API v1 `prioritizationFeeLamports`: a number, {priorityLevelWithMaxLamports}, or "auto". */
function priorityFeeOf(v: unknown): bigint {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return BigInt(v);
  const max = (v as { priorityLevelWithMaxLamports?: { maxLamports?: unknown } } | null)?.priorityLevelWithMaxLamports
    ?.maxLamports;
  if (typeof max === "number") return BigInt(max);
  return 50_000n;
}

export async function startChainAggregator(chain: LiteSvmRpc): Promise<ChainAggregator> {
  return new ChainAggregator(chain).start();
}
