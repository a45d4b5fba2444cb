import { type RawAccount, type RpcCaller, rawAccountOf } from "../../market/mint-info.ts";
import type { SignatureStatus } from "../../market/solana-rpc.ts";

// The few chain reads the inspector and the send loop need, as small interfaces (tests hand in
// the litesvm-backed RPC; nothing here knows about HTTP), and their JSON-RPC implementation over
// SolanaRpcClient.call (https://solana.com/docs/rpc/http).

interface AccountsRead {
  /** The context slot the node answered at. */
  slot: number;
  accounts: Array<RawAccount | null>;
}

interface SimulationRead {
  err: unknown;
  logs: string[];
  /** The requested accounts after the simulated transaction (null when it failed). */
  accounts: Array<RawAccount | null> | null;
}

export interface InspectorChain {
  getAccounts(addresses: readonly string[], minContextSlot?: number): Promise<AccountsRead>;
  /** Simulates an unsigned transaction (sigVerify off, blockhash replaced) returning `addresses`. */
  simulate(base64Tx: string, addresses: readonly string[], minContextSlot: number): Promise<SimulationRead>;
}

/** Block height with the slot it was read at. */
export interface HeightRead {
  slot: number;
  blockHeight: number;
}

export interface StatusRead {
  /** The context slot of the getSignatureStatuses answer. */
  contextSlot: number;
  status: SignatureStatus | null;
}

/** Our own blockhash (getLatestBlockhash), with the context slot it was read at. */
export interface BlockhashRead {
  blockhash: string;
  lastValidBlockHeight: number;
  contextSlot: number;
}

/** The reads of an expiry proof (outcome.ts judgeAttempt), all from one node. */
export type ExpiryReads = Pick<SendChain, "readHeight" | "readStatus" | "blockhashValid" | "firstAvailableSlot">;

export interface SendChain {
  /**
   * SOLANA_CONFIRM_RPC_URL: a second node that must prove an expiry too, with its own reads,
   * before a sent swap is called expired (docs/decisions/live-send-guards.md).
   */
  confirmNode?: ExpiryReads;
  /** getLatestBlockhash (confirmed): the blockhash every swap is signed with, and its last valid height. */
  latestBlockhash(minContextSlot?: number): Promise<BlockhashRead>;
  /**
   * isBlockhashValid at or after `minContextSlot`, at `confirmed`: a blockhash a confirmed bank
   * holds stale is stale on every fork built on it (a processed bank may sit on a fork that loses).
   */
  blockhashValid(blockhash: string, minContextSlot: number): Promise<{ valid: boolean; contextSlot: number }>;
  /** getFirstAvailableBlock: the oldest slot whose transactions the node can still find. */
  firstAvailableSlot(): Promise<number>;
  /** Submits signed bytes once (maxRetries 0: this service rebroadcasts itself). */
  sendRaw(base64Tx: string): Promise<string>;
  /** Finalized block height and its slot (getEpochInfo): what expiry is measured against. */
  readHeight(): Promise<HeightRead>;
  /** The signature's status, searching the whole history, with the answer's context slot. */
  readStatus(signature: string): Promise<StatusRead>;
  /** Up to 256 statuses in one call, in order, with the answer's context slot (reconciler). */
  readStatuses(
    signatures: readonly string[],
  ): Promise<{ contextSlot: number; statuses: Array<SignatureStatus | null> }>;
}

export function rpcInspectorChain(rpc: RpcCaller): InspectorChain {
  return {
    async getAccounts(addresses, minContextSlot) {
      const r = await rpc.call<{ context?: { slot?: unknown }; value?: unknown }>("getMultipleAccounts", [
        addresses,
        { encoding: "base64", commitment: "confirmed", ...(minContextSlot !== undefined ? { minContextSlot } : {}) },
      ]);
      if (!Array.isArray(r?.value) || typeof r.context?.slot !== "number")
        throw new Error("getMultipleAccounts answered without context and value");
      return { slot: r.context.slot, accounts: r.value.map(rawAccountOf) };
    },
    async simulate(base64Tx, addresses, minContextSlot) {
      const r = await rpc.call<{ value?: { err?: unknown; logs?: unknown; accounts?: unknown } }>(
        "simulateTransaction",
        [
          base64Tx,
          {
            encoding: "base64",
            commitment: "confirmed",
            sigVerify: false,
            replaceRecentBlockhash: true,
            minContextSlot,
            accounts: { encoding: "base64", addresses },
          },
        ],
      );
      const v = r?.value;
      if (!v || typeof v !== "object") throw new Error("simulateTransaction answered without value");
      return {
        err: v.err ?? null,
        logs: Array.isArray(v.logs) ? v.logs.map(String) : [],
        accounts: Array.isArray(v.accounts) ? v.accounts.map(rawAccountOf) : null,
      };
    },
  };
}

/** `confirm`: the second node whose own proof an expiry needs too (SOLANA_CONFIRM_RPC_URL). */
export function rpcSendChain(rpc: RpcCaller, confirm?: RpcCaller): SendChain {
  return {
    ...(confirm ? { confirmNode: rpcSendChain(confirm) } : {}),
    async latestBlockhash(minContextSlot) {
      const r = await rpc.call<{
        context?: { slot?: unknown };
        value?: { blockhash?: unknown; lastValidBlockHeight?: unknown };
      }>("getLatestBlockhash", [
        { commitment: "confirmed", ...(minContextSlot !== undefined ? { minContextSlot } : {}) },
      ]);
      const v = r?.value;
      if (
        typeof r?.context?.slot !== "number" ||
        typeof v?.blockhash !== "string" ||
        typeof v.lastValidBlockHeight !== "number"
      )
        throw new Error("getLatestBlockhash answered without context, blockhash and lastValidBlockHeight");
      return { blockhash: v.blockhash, lastValidBlockHeight: v.lastValidBlockHeight, contextSlot: r.context.slot };
    },
    async blockhashValid(blockhash, minContextSlot) {
      const r = await rpc.call<{ context?: { slot?: unknown }; value?: unknown }>("isBlockhashValid", [
        blockhash,
        { commitment: "confirmed", minContextSlot },
      ]);
      if (typeof r?.value !== "boolean" || typeof r.context?.slot !== "number")
        throw new Error("isBlockhashValid answered without context and a boolean value");
      return { valid: r.value, contextSlot: r.context.slot };
    },
    async firstAvailableSlot() {
      const r = await rpc.call<unknown>("getFirstAvailableBlock", []);
      if (typeof r !== "number") throw new Error("getFirstAvailableBlock answered without a slot");
      return r;
    },
    async sendRaw(base64Tx) {
      const r = await rpc.call<unknown>("sendTransaction", [
        base64Tx,
        { encoding: "base64", skipPreflight: true, maxRetries: 0 },
      ]);
      if (typeof r !== "string") throw new Error("sendTransaction answered without a signature");
      return r;
    },
    async readHeight() {
      const r = await rpc.call<{ absoluteSlot?: unknown; blockHeight?: unknown }>("getEpochInfo", [
        { commitment: "finalized" },
      ]);
      if (typeof r?.absoluteSlot !== "number" || typeof r.blockHeight !== "number")
        throw new Error("getEpochInfo answered without absoluteSlot and blockHeight");
      return { slot: r.absoluteSlot, blockHeight: r.blockHeight };
    },
    async readStatus(signature) {
      const r = await this.readStatuses([signature]);
      return { contextSlot: r.contextSlot, status: r.statuses[0] ?? null };
    },
    async readStatuses(signatures) {
      const r = await rpc.call<{ context?: { slot?: unknown }; value?: unknown }>("getSignatureStatuses", [
        signatures,
        { searchTransactionHistory: true },
      ]);
      if (typeof r?.context?.slot !== "number" || !Array.isArray(r.value) || r.value.length !== signatures.length)
        throw new Error("getSignatureStatuses answered without context and one value per signature");
      const statuses = (r.value as Array<Record<string, unknown> | null>).map((s): SignatureStatus | null => {
        if (!s) return null;
        const cs = s.confirmationStatus;
        return {
          slot: typeof s.slot === "number" ? s.slot : 0,
          confirmations: typeof s.confirmations === "number" ? s.confirmations : null,
          err: s.err ?? null,
          confirmationStatus: cs === "processed" || cs === "confirmed" || cs === "finalized" ? cs : null,
        };
      });
      return { contextSlot: r.context.slot, statuses };
    },
  };
}
