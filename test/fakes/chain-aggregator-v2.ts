import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  NATIVE_MINT,
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
import bs58 from "bs58";
import { DEFAULT_QUOTE_TAKER } from "../../src/config.ts";
import type { ChainAggregator, Pool } from "./chain-aggregator.ts";
import { MEMO_PROGRAM, SKIM_BPS, skimTransfer } from "./chain-aggregator.ts";

// Jupiter Swap API v2 on the litesvm chain aggregator, in the documented wire format:
//   GET  /swap/v2/build?inputMint&outputMint&amount&taker[&slippageBps]
//        → quote fields + computeBudgetInstructions (a compute-unit price only), setupInstructions,
//          swapInstruction, cleanupInstruction, otherInstructions, addressesByLookupTableAddress,
//          blockhashWithMetadata; instructions {programId, accounts[{pubkey, isSigner,
//          isWritable}], data (base64)}.
//   GET  /swap/v2/order?inputMint&outputMint&amount[&taker] → quote fields + router, mode, feeBps,
//        feeMint, requestId, transaction (base64 v0, unsigned; null without taker),
//        lastValidBlockHeight (string), expireAt.
//   POST /swap/v2/execute {signedTransaction, requestId} → {status, signature, slot, code, error?,
//        inputAmountResult, outputAmountResult, totalInputAmount, totalOutputAmount, swapEvents}.
//        Idempotent per requestId: the same request answers the first outcome without landing again.
// Errors: 400 {error, errorCode} for a bad request or an unroutable pair (as v1's quote).
//
// There is no Jupiter program on litesvm, so the "route" is SPL Token transfers the pool lets the
// taker sign as its delegate (as v1's swaps): a buy wraps SOL into the taker's wSOL account
// (setup), pays the pool from it (setup) and receives the tokens (swapInstruction), and closes the
// wSOL account (cleanup); a sell pays tokens (setup) and receives wSOL (swapInstruction), closed
// into SOL (cleanup); `tamper.deliverBps` makes it move less than quoted, as v1's does. `mode` "hostile" adds a SOL transfer to `thief` to otherInstructions,
// "foreign-program" a Memo instruction, "skim" swaps 1 % less and adds that 1 % to `thief` with the
// taker flagged isSigner:false. An /order transaction is those instructions assembled by
// the fake, with its own compute budget.

/** What the fake's compute-budget instruction asks: a price a taker must not simply accept. */
export const FAKE_BUILD_MICRO_LAMPORTS = 5_000_000;
const ORDER_COMPUTE_UNITS = 200_000;
const SOL = NATIVE_MINT.toBase58();
const QUOTE_TAKER = new PublicKey(DEFAULT_QUOTE_TAKER);

interface StoredOrder {
  body: Record<string, unknown>;
  message: Uint8Array;
  result: Record<string, unknown> | null;
  expired: boolean;
}

const apiIx = (ix: TransactionInstruction) => ({
  programId: ix.programId.toBase58(),
  accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
  data: Buffer.from(ix.data).toString("base64"),
});
const bad = (error: string, errorCode = "INVALID_REQUEST") => Response.json({ error, errorCode }, { status: 400 });

export class SwapV2 {
  readonly buildRequests: URLSearchParams[] = [];
  readonly orderRequests: URLSearchParams[] = [];
  readonly executeRequests: Array<Record<string, unknown>> = [];
  /**
   * The router and fee an /order answer names. The fee is taken in SOL (Jupiter's fee-mint
   * priority list puts SOL first): on a buy `feeBps` of the input goes to `feeAccount` and the
   * rest is swapped; on a sale `feeBps` of the pool's SOL goes there and outAmount is net of it.
   */
  router = "iris";
  feeBps = 0;
  readonly feeAccount = Keypair.generate().publicKey;
  /** The next N /execute posts answer 504 before anything is done (a gateway timing out). */
  executeTimeouts = 0;
  /** The next N /execute posts are executed but answered 504 (the answer lost on the way). */
  executeTimeoutsAfterLanding = 0;
  /** /execute lands the order but answers Failed (an answer the chain contradicts). */
  executeLies = false;
  /** New orders are born expired: /execute answers code -1 without sending anything. */
  ordersExpireAtOnce = false;
  /** Fields laid over every /order answer (a field the service does not use, null or odd). */
  orderPatch: Record<string, unknown> = {};
  /** Called after each /order answer with a transaction is made (a test moves the chain on). */
  onOrder: (() => void) | null = null;
  /** Called with each /execute body as it arrives (a test looks at the journal then). */
  onExecute: ((body: Record<string, unknown>) => void) | null = null;
  private readonly orders = new Map<string, StoredOrder>();
  private nextRequest = 1;

  private feeAccountFunded = false;

  constructor(private readonly agg: ChainAggregator) {}

  /** The order can no longer be executed (its ~2 minute lifetime is over). */
  expireOrder(requestId: string): void {
    const o = this.orders.get(requestId);
    if (o) o.expired = true;
  }

  async handle(req: Request, url: URL): Promise<Response> {
    if (req.method === "GET" && url.pathname === "/swap/v2/build") return this.build(url.searchParams);
    if (req.method === "GET" && url.pathname === "/swap/v2/order") return this.order(url.searchParams);
    if (req.method === "POST" && url.pathname === "/swap/v2/execute")
      return this.execute(await req.json().catch(() => null));
    return Response.json({ error: "Not found" }, { status: 404 });
  }

  private taker(q: URLSearchParams): PublicKey | null | "bad" {
    const t = q.get("taker");
    if (t === null || t === "") return null;
    try {
      return new PublicKey(t);
    } catch {
      return "bad";
    }
  }

  private build(q: URLSearchParams): Response {
    this.buildRequests.push(q);
    const taker = this.taker(q);
    if (taker === null || taker === "bad") return bad("taker: a valid public key is required");
    const r = this.agg.priceQuote(q);
    if (r instanceof Response) return r;
    const moves = this.agg.delivered(r.poolMoves);
    const route = this.route(
      r.pool,
      moves,
      BigInt(String(r.quote.inAmount)),
      r.quote.inputMint === SOL,
      taker,
      r.quote,
    );
    const { blockhash, lastValidBlockHeight } = this.agg.chain.latestBlockhash();
    return Response.json({
      ...r.quote,
      computeBudgetInstructions: [
        apiIx(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: FAKE_BUILD_MICRO_LAMPORTS })),
      ],
      setupInstructions: route.setup.map(apiIx),
      swapInstruction: apiIx(route.swap),
      cleanupInstruction: route.cleanup ? apiIx(route.cleanup) : null,
      otherInstructions: route.other.map(apiIx),
      addressesByLookupTableAddress: { [r.pool.lookupTable.toBase58()]: this.tableAddresses(r.pool) },
      blockhashWithMetadata: { blockhash: Array.from(bs58.decode(blockhash)), lastValidBlockHeight },
    });
  }

  private order(q: URLSearchParams): Response {
    this.orderRequests.push(q);
    const taker = this.taker(q);
    if (taker === "bad") return bad("taker: not a valid public key");
    const buy = q.get("inputMint") === SOL;
    const amount = BigInt(/^\d+$/.test(q.get("amount") ?? "") ? q.get("amount")! : "0");
    // A buy's fee comes off the input before the swap; a sale's off the SOL the pool pays.
    const buyFee = buy ? (amount * BigInt(this.feeBps)) / 10_000n : 0n;
    const priced = new URLSearchParams(q);
    if (buyFee > 0n) priced.set("amount", String(amount - buyFee));
    const r = this.agg.priceQuote(priced);
    if (r instanceof Response) return r;
    const sellFee = buy ? 0n : (r.poolMoves * BigInt(this.feeBps)) / 10_000n;
    if (buyFee > 0n || sellFee > 0n) {
      const out = BigInt(String(r.quote.outAmount)) - sellFee;
      const slippage = Number(r.quote.slippageBps);
      r.quote.inAmount = amount.toString();
      r.quote.outAmount = out.toString();
      r.quote.otherAmountThreshold = ((out * BigInt(10_000 - slippage)) / 10_000n).toString();
      r.quote.platformFee = { amount: String(buyFee + sellFee), feeBps: this.feeBps, feeMint: SOL };
    }
    const requestId = `req-${this.nextRequest++}`;
    const { blockhash, lastValidBlockHeight } = this.agg.chain.latestBlockhash();
    const body: Record<string, unknown> = {
      mode: "ultra",
      ...r.quote,
      feeMint: SOL,
      feeBps: this.feeBps,
      router: this.router,
      swapType: "aggregator",
      requestId,
      taker: taker?.toBase58() ?? null,
      transaction: null,
      lastValidBlockHeight: String(lastValidBlockHeight),
      expireAt: String(Math.floor(Date.now() / 1000) + 120),
      totalTime: 1,
    };
    if (taker) {
      const route = this.route(r.pool, this.agg.delivered(r.poolMoves), amount - buyFee, buy, taker, r.quote);
      const fee = buyFee + sellFee;
      // Rent-exempt before the first fee lands in it.
      if (fee > 0n && !this.feeAccountFunded) {
        this.agg.chain.airdrop(this.feeAccount, 1_000_000_000n);
        this.feeAccountFunded = true;
      }
      const ixs = [
        ComputeBudgetProgram.setComputeUnitLimit({ units: ORDER_COMPUTE_UNITS }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 100_000 }),
        ...route.setup,
        route.swap,
        ...(route.cleanup ? [route.cleanup] : []),
        ...(fee > 0n ? [SystemProgram.transfer({ fromPubkey: taker, toPubkey: this.feeAccount, lamports: fee })] : []),
        ...route.other,
      ];
      const message = new TransactionMessage({ payerKey: taker, recentBlockhash: blockhash, instructions: ixs });
      const v0 = message.compileToV0Message([this.lookupTable(r.pool)]);
      const tx = new VersionedTransaction(v0);
      body.transaction = Buffer.from(tx.serialize()).toString("base64");
      this.orders.set(requestId, { body, message: v0.serialize(), result: null, expired: this.ordersExpireAtOnce });
      this.onOrder?.();
    }
    return Response.json({ ...body, ...this.orderPatch });
  }

  private async execute(raw: unknown): Promise<Response> {
    const b = (raw ?? {}) as Record<string, unknown>;
    this.executeRequests.push(b);
    this.onExecute?.(b);
    const gatewayTimeout = () => Response.json({ error: "Gateway Timeout" }, { status: 504 });
    if (this.executeTimeouts > 0) {
      this.executeTimeouts--;
      return gatewayTimeout();
    }
    const answer = await this.executeOrder(b);
    if (this.executeTimeoutsAfterLanding > 0) {
      this.executeTimeoutsAfterLanding--;
      return gatewayTimeout();
    }
    return answer;
  }

  private async executeOrder(b: Record<string, unknown>): Promise<Response> {
    if (typeof b.signedTransaction !== "string" || typeof b.requestId !== "string")
      return Response.json({ error: "signedTransaction and requestId are required", code: -2 }, { status: 400 });
    const order = this.orders.get(b.requestId);
    if (!order || order.expired)
      return Response.json({ status: "Failed", code: -1, error: "Order not found or expired" });
    if (order.result) return Response.json(order.result); // idempotent per requestId
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(b.signedTransaction, "base64"));
    } catch {
      return Response.json({ status: "Failed", code: -2, error: "Invalid signed transaction" });
    }
    if (!Buffer.from(tx.message.serialize()).equals(Buffer.from(order.message)))
      return Response.json({ status: "Failed", code: -3, error: "Transaction message differs from the order" });
    const sent = await this.agg.chain.rpcCall("sendTransaction", [
      b.signedTransaction,
      { encoding: "base64", skipPreflight: true },
    ]);
    const signature = bs58.encode(tx.signatures[0]!);
    const landed = this.agg.chain.landed.get(signature);
    const q = order.body;
    order.result =
      this.executeLies || sent.error || !landed || landed.err
        ? {
            status: "Failed",
            signature,
            code: sent.error ? -1002 : -1000,
            error: sent.error ? String(sent.error.message) : `Transaction failed: ${JSON.stringify(landed?.err)}`,
          }
        : {
            status: "Success",
            signature,
            slot: String(landed.slot),
            code: 0,
            totalInputAmount: q.inAmount,
            totalOutputAmount: q.outAmount,
            inputAmountResult: q.inAmount,
            outputAmountResult: q.outAmount,
            swapEvents: [
              { inputMint: q.inputMint, inputAmount: q.inAmount, outputMint: q.outputMint, outputAmount: q.outAmount },
            ],
          };
    return Response.json(order.result);
  }

  private tableAddresses(pool: Pool): string[] {
    return this.lookupTable(pool).state.addresses.map((a) => a.toBase58());
  }

  private lookupTable(pool: Pool): AddressLookupTableAccount {
    const table = this.agg.chain.svm.getAccount(pool.lookupTable)!;
    return new AddressLookupTableAccount({
      key: pool.lookupTable,
      state: AddressLookupTableAccount.deserialize(Buffer.from(table.data)),
    });
  }

  /**
   * The taker's side of the swap, split as /build splits a route: the transfers in setup, the
   * Jupiter `route` instruction (jupiter-program.ts, its minimum from `quote`) as swapInstruction.
   */
  private route(
    pool: Pool,
    quoted: bigint,
    asked: bigint,
    buy: boolean,
    taker: PublicKey,
    quote: Record<string, unknown>,
  ) {
    // "skim": a buy swaps 1 % less of its input, a sale pays 1 % of its SOL; that goes to the thief.
    const skim = this.agg.mode === "skim";
    const skimLamports = skim ? ((buy ? asked : quoted) * SKIM_BPS) / 10_000n : 0n;
    const amount = buy ? asked - skimLamports : asked;
    const poolMoves = skim && buy ? quoted - (quoted * SKIM_BPS) / 10_000n : quoted;
    const ata = getAssociatedTokenAddressSync(pool.mint, taker, false, pool.programId);
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, taker);
    // The pool has one delegate per account: a route only quoted (for the service's quote taker,
    // whose key nobody holds) must not take it from a wallet whose route is about to be signed.
    if (!taker.equals(QUOTE_TAKER)) this.agg.approve(pool, taker, poolMoves, buy);
    const setup: TransactionInstruction[] = [
      createAssociatedTokenAccountIdempotentInstruction(taker, wsol, taker, NATIVE_MINT),
    ];
    if (buy) {
      setup.push(
        SystemProgram.transfer({ fromPubkey: taker, toPubkey: wsol, lamports: amount }),
        createSyncNativeInstruction(wsol),
        createAssociatedTokenAccountIdempotentInstruction(taker, ata, taker, pool.mint, pool.programId),
        createTransferCheckedInstruction(wsol, NATIVE_MINT, pool.wsolAccount, taker, amount, 9),
      );
      setup.push(
        createTransferCheckedInstruction(
          pool.tokenAccount,
          pool.mint,
          ata,
          taker,
          poolMoves,
          pool.decimals,
          [],
          pool.programId,
        ),
      );
    } else {
      setup.push(
        createTransferCheckedInstruction(
          ata,
          pool.mint,
          pool.tokenAccount,
          taker,
          amount,
          pool.decimals,
          [],
          pool.programId,
        ),
      );
      setup.push(createTransferCheckedInstruction(pool.wsolAccount, NATIVE_MINT, wsol, taker, poolMoves, 9));
    }
    // A skimming route's bytes still name the whole input (what the JSON promised).
    const swap = this.agg.routeOf(pool, taker, buy, quote, asked, poolMoves);
    const hop = this.agg.tamper.alsoOpens;
    if (hop)
      setup.unshift(
        createAssociatedTokenAccountIdempotentInstruction(
          taker,
          getAssociatedTokenAddressSync(hop.mint, taker, false, hop.programId),
          taker,
          hop.mint,
          hop.programId,
        ),
      );
    const other: TransactionInstruction[] = [];
    if (this.agg.mode === "hostile")
      other.push(
        SystemProgram.transfer({ fromPubkey: taker, toPubkey: this.agg.thief, lamports: this.agg.hostileLamports }),
      );
    if (skim) other.push(skimTransfer(taker, this.agg.thief, skimLamports));
    if (this.agg.mode === "foreign-program")
      other.push(
        new Ix({
          programId: MEMO_PROGRAM,
          keys: [{ pubkey: taker, isSigner: true, isWritable: false }],
          data: Buffer.from("route"),
        }),
      );
    const cleanup = this.agg.tamper.keepWsolOpen ? null : createCloseAccountInstruction(wsol, taker, taker);
    return { setup, swap, cleanup, other };
  }
}
