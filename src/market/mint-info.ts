import type { Clock } from "../clock.ts";
import { TradingError } from "../errors.ts";
import type { SolanaRpcClient } from "./solana-rpc.ts";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "./solana-rpc.ts";
import { KNOWN_MINT_EXTENSIONS, MintExtension, type ParsedMint, parseMint } from "./token-layouts.ts";

// What a mint account says about a token: decimals and token
// program (so a brand-new token the price source omits still trades), and the authorities and
// Token-2022 transfer fee that token screening judges. Read with getAccountInfo (base64) and
// parsed here (token-layouts.ts), so any RPC node serves it, jsonParsed or not.
//
// Cached per mint for `ttlMs`: decimals and program never change, authorities and fees rarely, and
// a buy, its screening and its inspection all ask within seconds.

/** One JSON-RPC call: SolanaRpcClient.call satisfies it. */
export type RpcCaller = Pick<SolanaRpcClient, "call">;

export interface RawAccount {
  /** Owning program (base58). */
  owner: string;
  lamports: bigint;
  data: Uint8Array;
}

export interface MintInfo {
  mint: string;
  decimals: number;
  /** TOKEN_PROGRAM_ID or TOKEN_2022_PROGRAM_ID. */
  tokenProgram: string;
  mintAuthority: string | null;
  freezeAuthority: string | null;
  /**
   * Token-2022 transfer fee in basis points, 0 without one. The larger of the fee in force and a
   * scheduled one: a fee raise takes effect at the next epoch, within days of a buy.
   */
  transferFeeBps: number;
  /**
   * The transfer fee a simulated swap withholds, null without
   * one: the larger basis points and the larger cap of the fee in force and the scheduled one, so
   * the simulation never takes less than the chain may. Optional for readers built elsewhere.
   */
  transferFee?: { basisPoints: number; maximumFee: bigint } | null;
  /** Token-2022 extension types present (token-layouts.ts MintExtension). */
  extensions: number[];
  /** NonTransferable: the token can never be sent, so never sold. */
  nonTransferable: boolean;
  /**
   * Who can move, freeze or block the tokens besides their holder (token-layouts.ts ParsedMint
   * says what each is), and the extension types this service does not know. Token screening
   * refuses each by default (src/trading/rules/token-screening.ts).
   */
  permanentDelegate: string | null;
  pauseAuthority: string | null;
  paused: boolean;
  transferHookProgram: string | null;
  transferHookAuthority: string | null;
  defaultAccountFrozen: boolean;
  unknownExtensions: number[];
}

/** base64 account JSON (getAccountInfo / getMultipleAccounts / simulateTransaction) → RawAccount. */
export function rawAccountOf(v: unknown): RawAccount | null {
  if (v === null || v === undefined) return null;
  const o = v as { owner?: unknown; lamports?: unknown; data?: unknown };
  const data = Array.isArray(o.data) && typeof o.data[0] === "string" ? o.data[0] : null;
  if (typeof o.owner !== "string" || typeof o.lamports !== "number" || data === null)
    throw new Error("account is not base64-encoded JSON");
  return { owner: o.owner, lamports: BigInt(o.lamports), data: new Uint8Array(Buffer.from(data, "base64")) };
}

function mintInfoOf(mint: string, account: RawAccount): MintInfo | null {
  if (account.owner !== TOKEN_PROGRAM_ID && account.owner !== TOKEN_2022_PROGRAM_ID) return null;
  const m: ParsedMint | null = parseMint(account.data);
  if (!m?.isInitialized) return null;
  const feeBps = m.transferFee ? Math.max(m.transferFee.older.basisPoints, m.transferFee.newer.basisPoints) : 0;
  return {
    mint,
    decimals: m.decimals,
    tokenProgram: account.owner,
    mintAuthority: m.mintAuthority,
    freezeAuthority: m.freezeAuthority,
    transferFeeBps: feeBps,
    // Present only with a fee, so a mint without one reads exactly as before.
    ...(m.transferFee && feeBps > 0
      ? {
          transferFee: {
            basisPoints: feeBps,
            maximumFee: largerBigint(m.transferFee.older.maximumFee, m.transferFee.newer.maximumFee),
          },
        }
      : {}),
    extensions: m.extensions,
    nonTransferable: m.extensions.includes(MintExtension.NonTransferable),
    permanentDelegate: m.permanentDelegate,
    pauseAuthority: m.pauseAuthority,
    paused: m.paused,
    transferHookProgram: m.transferHookProgram,
    transferHookAuthority: m.transferHookAuthority,
    defaultAccountFrozen: m.defaultAccountFrozen,
    unknownExtensions: m.extensions.filter((t) => !KNOWN_MINT_EXTENSIONS.has(t)),
  };
}

/** Math.max for bigints (Math.max takes numbers only). */
function largerBigint(a: bigint, b: bigint): bigint {
  if (a > b) return a;
  return b;
}

export interface MintInfoSourceOptions {
  rpc: RpcCaller;
  clock: Pick<Clock, "now">;
  /** How long a read is reused; default 10 minutes. */
  ttlMs?: number;
}

export class MintInfoSource {
  private readonly cache = new Map<string, { at: number; info: MintInfo }>();
  private readonly reading = new Map<string, Promise<MintInfo>>();
  private readonly ttlMs: number;

  constructor(private readonly opts: MintInfoSourceOptions) {
    this.ttlMs = opts.ttlMs ?? 10 * 60_000;
  }

  /**
   * The mint's facts; TradingError when the address is not a token mint. `maxAgeMs`: a cached read
   * older than this is read again (default the TTL; 0: always a fresh read).
   */
  async get(mint: string, maxAgeMs = this.ttlMs): Promise<MintInfo> {
    const now = this.opts.clock.now();
    const hit = this.cache.get(mint);
    if (hit && now - hit.at < Math.min(maxAgeMs, this.ttlMs)) return hit.info;
    // The buy's sizing and the screening ask for a new mint in the same turn: one read.
    const pending = this.reading.get(mint);
    if (pending) return pending;
    const read = this.read(mint, now).finally(() => this.reading.delete(mint));
    this.reading.set(mint, read);
    return read;
  }

  private async read(mint: string, now: number): Promise<MintInfo> {
    const r = await this.opts.rpc.call<{ value?: unknown }>("getAccountInfo", [
      mint,
      { encoding: "base64", commitment: "confirmed" },
    ]);
    let account: RawAccount | null;
    try {
      account = rawAccountOf(r?.value);
    } catch {
      account = null;
    }
    const info = account ? mintInfoOf(mint, account) : null;
    if (!info) throw new TradingError(`Token ${mint} is not a token mint on chain`, { mint });
    this.cache.set(mint, { at: now, info });
    return info;
  }
}
