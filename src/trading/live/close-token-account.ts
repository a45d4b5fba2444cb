import { PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { type Clock, isoNow } from "../../clock.ts";
import { inTransaction, type SqliteHandle } from "../../db/client.ts";
import type { Logger } from "../../logger.ts";
import type { MintInfo, RpcCaller } from "../../market/mint-info.ts";
import type { SolanaRpcClient } from "../../market/solana-rpc.ts";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "../../market/solana-rpc.ts";
import { parseTokenAccount } from "../../market/token-layouts.ts";
import { fromAtomic, SOL_DECIMALS } from "../../money.ts";
import { mirrorChainBalances } from "../../wallets/live-balances.ts";
import { closesTokenAccount } from "../rules/fees.ts";
import { recordTokenAccountClose } from "../settlement/account-close.ts";
import type { InspectorChain, SendChain } from "./chain-reads.ts";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  checkFee,
  checkPrograms,
  checkSigners,
  transactionFee,
} from "./inspection-rules.ts";
import { broadcastUntilSettled } from "./outcome.ts";

// Getting the token account's rent back after a live position closes (docs/decisions.md
// "Token account rent, live"). A swap's sale empties the wallet's associated token account but
// leaves it open, with 0.00203928 SOL of rent locked in it; the simulation gives that rent back
// to the wallet's SOL when a position closes, so live must too, or simulation would be kinder than
// live. In both modes the rent is not in the sale or the position's P/L: it was spent by the buy
// and comes back to the wallet after the position is recorded; the close's fee is in the P/L.
//
// After a confirmed sale that closed the position and left none of the mint in the wallet (read at
// or after the sale's slot), and when no other open position of the wallet holds the mint and no
// swap of it is in doubt, this builds ONE transaction with ONE instruction: the token program's
// CloseAccount (account = the wallet's associated token account, destination = owner = the
// wallet). Built here, so inspected by construction, and checked again before signing (exactly
// that instruction, the wallet the only signer and fee payer, one signature's fee), simulated
// signed, then sent with the swaps' machinery (the same bytes until confirmed, failed or proven
// expired).
//
// Never retried and never journaled: its outcome cannot hurt anything. The position is already
// closed and recorded; a close that failed, expired, stayed unknown or was lost to a crash leaves
// the rent locked in an empty account (a warning names it), and a second CloseAccount of a closed
// account simply fails. On success the wallet's SOL is mirrored from the chain, as after a swap.
//
// Token-2022 mints with a transfer fee are left open: the program refuses to close an account
// that holds withheld fees, and harvesting them first would be a second instruction to trust.
// The simulation returns no rent for those mints either (rules/fees.ts closesTokenAccount).

/** spl-token (and Token-2022) instruction CloseAccount: accounts [account, destination, owner]. */
const CLOSE_ACCOUNT_INSTRUCTION = 9;
/** One signature, no priority fee: the whole cost of the close. */
const CLOSE_ACCOUNT_FEE_LAMPORTS = 5_000n;

const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]);

/** The associated token account of `wallet` for `mint` under `tokenProgram`. */
export function associatedTokenAddress(wallet: string, mint: string, tokenProgram: string): string {
  const [address] = PublicKey.findProgramAddressSync(
    [new PublicKey(wallet).toBuffer(), new PublicKey(tokenProgram).toBuffer(), new PublicKey(mint).toBuffer()],
    new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
  );
  return address.toBase58();
}

export interface CloseAccountTarget {
  wallet: string;
  /** The token account to close. */
  account: string;
  /** TOKEN_PROGRAM_ID or TOKEN_2022_PROGRAM_ID: the account's owner program. */
  tokenProgram: string;
}

/** The unsigned close: one CloseAccount instruction, rent to the wallet, the wallet paying. */
export function buildCloseAccountTransaction(t: CloseAccountTarget, recentBlockhash: string): VersionedTransaction {
  if (!TOKEN_PROGRAMS.has(t.tokenProgram)) throw new Error(`not a token program: ${t.tokenProgram}`);
  const wallet = new PublicKey(t.wallet);
  const ix = new TransactionInstruction({
    programId: new PublicKey(t.tokenProgram),
    keys: [
      { pubkey: new PublicKey(t.account), isSigner: false, isWritable: true },
      { pubkey: wallet, isSigner: false, isWritable: true },
      { pubkey: wallet, isSigner: true, isWritable: false },
    ],
    data: Buffer.from([CLOSE_ACCOUNT_INSTRUCTION]),
  });
  const message = new TransactionMessage({
    payerKey: wallet,
    recentBlockhash,
    instructions: [ix],
  }).compileToV0Message();
  return new VersionedTransaction(message);
}

/**
 * Why `tx` is not exactly the close of `t` (null when it is): the wallet the only signer and the
 * fee payer, no lookup table, one instruction, the token program's CloseAccount of the account
 * with the rent to the wallet, and no fee beyond one signature's.
 */
export function closeAccountRefusal(tx: VersionedTransaction, t: CloseAccountTarget): string | null {
  const msg = tx.message;
  const keys = msg.staticAccountKeys.map((k) => k.toBase58());
  const signers = checkSigners(keys.slice(0, msg.header.numRequiredSignatures), t.wallet);
  if (!signers.ok) return signers.reason;
  if (msg.addressTableLookups.length > 0) return "the close uses an address lookup table";
  if (msg.compiledInstructions.length !== 1)
    return `the close has ${msg.compiledInstructions.length} instructions, not one`;
  const ix = msg.compiledInstructions[0]!;
  const program = keys[ix.programIdIndex]!;
  const programs = checkPrograms([program], new Set([t.tokenProgram]));
  if (!programs.ok) return programs.reason;
  if (ix.data.length !== 1 || ix.data[0] !== CLOSE_ACCOUNT_INSTRUCTION) return "the instruction is not CloseAccount";
  const accounts = ix.accountKeyIndexes.map((i) => keys[i]);
  if (accounts.length !== 3 || accounts[0] !== t.account || accounts[1] !== t.wallet || accounts[2] !== t.wallet)
    return "the CloseAccount accounts are not [token account, wallet, wallet]";
  const fee = transactionFee([{ programId: program, data: ix.data }], msg.header.numRequiredSignatures);
  const feeOk = checkFee(fee.feeLamports, CLOSE_ACCOUNT_FEE_LAMPORTS);
  return feeOk.ok ? null : feeOk.reason;
}

/** A live sale that closed its position, confirmed in `slot`. */
export interface ClosedPositionSale {
  agentId: string;
  walletAddress: string;
  mint: string;
  /** The sale's confirmation slot: every read is at or after it (minContextSlot). */
  slot: number;
  /** The SELL's agent_transactions id: a confirmed close records the rent it got back on it. */
  saleTransactionId?: string;
}

export type CloseAccountResult =
  | { status: "closed"; account: string; signature: string; rentLamports: bigint }
  | { status: "skipped"; reason: string; account?: string }
  | { status: "not_sent"; reason: string; account: string }
  | { status: "not_closed"; account: string; signature: string; outcome: string };

export interface TokenAccountCloserDeps {
  rpc: RpcCaller & Pick<SolanaRpcClient, "getBalances" | "simulateTransaction">;
  inspector: Pick<InspectorChain, "getAccounts">;
  sender: SendChain;
  wallets: { has(address: string): boolean; signTransaction<T extends VersionedTransaction>(a: string, tx: T): T };
  mintInfo: { get(mint: string): Promise<Pick<MintInfo, "tokenProgram" | "transferFeeBps">> };
  /** A swap of this agent's token in doubt: its tokens may still arrive. */
  hasUnresolved(agentId: string, mint: string, walletAddress: string): boolean;
  /** Any open position of the wallet holding the mint. */
  openPositionHolds(walletAddress: string, mint: string): boolean;
  db: SqliteHandle;
  clock: Clock;
  logger: Logger;
  confirmation?: { pollIntervalMs?: number; maxPolls?: number };
}

export class TokenAccountCloser {
  private readonly log: Logger;
  private readonly running = new Set<Promise<CloseAccountResult>>();
  private readonly abort = new AbortController();

  constructor(private readonly d: TokenAccountCloserDeps) {
    this.log = d.logger.child({ component: "live" });
  }

  /**
   * Starts closing the mint's token account in the background: the sale is recorded already, and
   * its caller (a manual close, the monitor) does not wait for the rent.
   */
  afterClosingSale(sale: ClosedPositionSale): void {
    if (this.abort.signal.aborted) return;
    const p = this.close(sale).finally(() => this.running.delete(p));
    this.running.add(p);
  }

  /** Resolves when every close started so far has ended (tests; shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** Shutdown: no new sends or polls; a close in flight is left to the chain (see above). */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.idle();
  }

  /** One close; never throws: whatever happens, the position's sale stands. */
  async close(sale: ClosedPositionSale): Promise<CloseAccountResult> {
    const ctx = { agentId: sale.agentId, walletAddress: sale.walletAddress, tokenAddress: sale.mint };
    try {
      const r = await this.attempt(sale);
      if (r.status === "closed")
        this.log.info("token account closed; its rent is back in the wallet", {
          ...ctx,
          account: r.account,
          signature: r.signature,
          rentLamports: r.rentLamports.toString(),
        });
      else if (r.status === "not_closed")
        this.log.warn("token account close not confirmed; its rent stays locked in the empty account", {
          ...ctx,
          account: r.account,
          signature: r.signature,
          outcome: r.outcome,
        });
      else if (r.status === "not_sent")
        this.log.warn("token account close not sent; its rent stays locked in the empty account", {
          ...ctx,
          account: r.account,
          reason: r.reason,
        });
      else this.log.info("token account left open", { ...ctx, reason: r.reason, account: r.account });
      return r;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.log.warn("token account close abandoned; its rent stays locked in the empty account", { ...ctx, reason });
      return { status: "skipped", reason };
    }
  }

  private async attempt(sale: ClosedPositionSale): Promise<CloseAccountResult> {
    const { walletAddress: wallet, mint } = sale;
    if (!this.d.wallets.has(wallet)) return { status: "skipped", reason: "the wallet's key is not loaded" };
    if (this.d.openPositionHolds(wallet, mint))
      return { status: "skipped", reason: "another open position of the wallet holds the token" };
    if (this.d.hasUnresolved(sale.agentId, mint, wallet))
      return { status: "skipped", reason: "a swap of the token is in doubt" };
    const info = await this.d.mintInfo.get(mint);
    if (!closesTokenAccount(info.transferFeeBps))
      return { status: "skipped", reason: "Token-2022 mint with a transfer fee: withheld fees block the close" };
    const account = associatedTokenAddress(wallet, mint, info.tokenProgram);
    const read = await this.d.inspector.getAccounts([account], sale.slot);
    const raw = read.accounts[0] ?? null;
    if (!raw) return { status: "skipped", reason: "no token account to close", account };
    const held = raw.owner === info.tokenProgram ? parseTokenAccount(raw.data) : null;
    if (!held || held.mint !== mint || held.owner !== wallet)
      return { status: "skipped", reason: "not the wallet's token account of the mint", account };
    if (held.amount !== 0n) return { status: "skipped", reason: "the token account is not empty", account };
    if (held.withheldAmount !== 0n) return { status: "skipped", reason: "the account holds withheld fees", account };
    if (held.closeAuthority !== null && held.closeAuthority !== wallet)
      return { status: "skipped", reason: "the account's close authority is not the wallet", account };

    const target = { wallet, account, tokenProgram: info.tokenProgram };
    const ours = await this.d.sender.latestBlockhash(read.slot);
    const tx = buildCloseAccountTransaction(target, ours.blockhash);
    const refusal = closeAccountRefusal(tx, target);
    if (refusal) throw new Error(`close transaction refused before signing: ${refusal}`);
    this.d.wallets.signTransaction(wallet, tx);
    const signature = bs58.encode(tx.signatures[0]!);
    const wire = Buffer.from(tx.serialize()).toString("base64");
    const sim = await this.d.rpc.simulateTransaction(wire);
    if (sim.err) return { status: "not_sent", reason: `the close would fail: ${JSON.stringify(sim.err)}`, account };

    const sent = await broadcastUntilSettled(
      { chain: this.d.sender, clock: this.d.clock, logger: this.log },
      {
        signedBase64: wire,
        attempt: {
          signature,
          blockhash: ours.blockhash,
          lastValidBlockHeight: ours.lastValidBlockHeight,
          signedAtSlot: ours.contextSlot,
        },
        intervalMs: this.d.confirmation?.pollIntervalMs,
        maxRounds: this.d.confirmation?.maxPolls ?? 30,
        signal: this.abort.signal,
      },
    );
    const state = sent.state;
    if (state.kind !== "landed")
      return {
        status: "not_closed",
        account,
        signature,
        outcome: state.kind === "failed" ? `failed: ${JSON.stringify(state.err)}` : state.kind,
      };
    // The rent is the wallet's SOL again: mirror it, read at or after the close's slot, and record
    // on the SELL that emptied the account what came back (its lamports) and this transaction's
    // fee, which comes off the position's P/L: the records sum to the wallet's SOL and the P/L is
    // what the wallet gained (docs/decisions/pnl-is-wallet-gain.md).
    const balances = await this.d.rpc.getBalances(wallet, state.slot);
    const now = isoNow(this.d.clock);
    inTransaction(this.d.db, () => {
      mirrorChainBalances(this.d.db, { agentId: sale.agentId, walletAddress: wallet }, balances, {
        now,
        mints: [mint],
      });
      if (sale.saleTransactionId)
        recordTokenAccountClose(
          this.d.db,
          sale.saleTransactionId,
          {
            refundSol: fromAtomic(raw.lamports, SOL_DECIMALS),
            feeSol: fromAtomic(CLOSE_ACCOUNT_FEE_LAMPORTS, SOL_DECIMALS),
          },
          now,
        );
    });
    return { status: "closed", account, signature, rentLamports: raw.lamports };
  }
}
