import type { Clock } from "../../clock.ts";
import type { Logger } from "../../logger.ts";
import type { ExpiryReads, HeightRead, SendChain, StatusRead } from "./chain-reads.ts";

// What happened to a signed transaction (issue 15 "Outcomes" and "Sending"):
// - A send that errors is "maybe sent": the node may have forwarded it before failing to answer
//   (a timeout, a 5xx, a load balancer's error after the leader got it). Its signature is known
//   before sending, so it is reconciled by signature, never retried as a new transaction.
// - "expired" only when proven (judgeAttempt): the finalized block height is past the
//   lastValidBlockHeight of the transaction's OWN blockhash (ours, from getLatestBlockhash at
//   signing), a status read (searchTransactionHistory) answered at a context slot at or after that
//   height read does not know the signature, the node says the blockhash is no longer valid, and
//   the node's history reaches back past the slot we signed at (getFirstAvailableBlock). A lagging
//   node (an older context slot) proves nothing: "pending". A node whose history starts after the
//   signing slot cannot prove absence (its null may hide a landed swap): "unknown", which stays
//   open and blocks the token until a node that can tell settles it. With a second node
//   (SOLANA_CONFIRM_RPC_URL) the whole proof is made again from that node's own reads, and the
//   attempt is expired only when both prove it; otherwise that node's verdict stands (landed,
//   failed, pending or unknown).
// - Sending: the same signed bytes every ~2 s (maxRetries 0, so the node does not retry on its
//   own schedule) until the transaction is confirmed, failed or proven expired.

export type SendResult = { kind: "sent"; signature: string } | { kind: "maybe-sent"; signature: string; error: string };

/** Every send error is "maybe sent": a send error never proves the transaction did not leave. */
export function classifySend(signature: string, error?: unknown): SendResult {
  if (error === undefined) return { kind: "sent", signature };
  return { kind: "maybe-sent", signature, error: error instanceof Error ? error.message : String(error) };
}

export type AttemptState =
  | { kind: "landed"; slot: number }
  | { kind: "failed"; slot: number; err: unknown }
  | { kind: "pending"; reason: string }
  | { kind: "expired"; provenAtSlot: number }
  | { kind: "unknown"; reason: string };

/** The signed transaction as journaled: what its outcome is judged against. */
export interface Attempt {
  signature: string;
  blockhash: string;
  lastValidBlockHeight: number;
  /** Context slot of the getLatestBlockhash answer it was signed with: it cannot land at or before it. */
  signedAtSlot: number;
}

/**
 * Classifies one status read. `height` must have been read BEFORE `status`; `null` when it could
 * not be read. Only a confirmed or finalized status counts as landed. Its "expired" is what the
 * height and the status say; judgeAttempt adds the blockhash and history reads that prove it.
 */
export function classifyAttempt(input: {
  lastValidBlockHeight: number;
  height: HeightRead | null;
  status: StatusRead;
}): AttemptState {
  const s = input.status.status;
  if (s) {
    if (s.confirmationStatus !== "confirmed" && s.confirmationStatus !== "finalized")
      return { kind: "pending", reason: `seen at slot ${s.slot}, not yet confirmed` };
    return s.err ? { kind: "failed", slot: s.slot, err: s.err } : { kind: "landed", slot: s.slot };
  }
  const h = input.height;
  if (!h) return { kind: "pending", reason: "block height unknown" };
  if (h.blockHeight <= input.lastValidBlockHeight)
    return { kind: "pending", reason: `block height ${h.blockHeight} ≤ last valid ${input.lastValidBlockHeight}` };
  if (input.status.contextSlot < h.slot)
    return {
      kind: "pending",
      reason: `status answered at slot ${input.status.contextSlot}, before the height read at slot ${h.slot}`,
    };
  return { kind: "expired", provenAtSlot: input.status.contextSlot };
}

/**
 * classifyAttempt, with an "expired" verdict proven by two more reads made AFTER the status:
 * isBlockhashValid at or after the status's context slot must say false, and the node's first
 * available block must be at or before the signing slot (history only ever shrinks from the old
 * end, so a later read covering it covered the status read too). Unreadable: "pending".
 */
export async function judgeAttempt(
  chain: Pick<SendChain, "blockhashValid" | "firstAvailableSlot" | "confirmNode">,
  attempt: Attempt,
  height: HeightRead | null,
  status: StatusRead,
): Promise<AttemptState> {
  const state = await proveOnOneNode(chain, attempt, height, status);
  if (state.kind !== "expired" || !chain.confirmNode) return state;
  return confirmExpiry(chain.confirmNode, attempt);
}

/** The second node's own proof: its height, then its status, then its blockhash and history reads. */
async function confirmExpiry(node: ExpiryReads, attempt: Attempt): Promise<AttemptState> {
  let height: HeightRead | null;
  let status: StatusRead;
  try {
    height = await node.readHeight();
    status = await node.readStatus(attempt.signature);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { kind: "pending", reason: `the confirming node could not be read: ${reason}` };
  }
  const state = await proveOnOneNode(node, attempt, height, status);
  if (state.kind === "pending" || state.kind === "unknown")
    return { ...state, reason: `the confirming node: ${state.reason}` };
  return state;
}

async function proveOnOneNode(
  chain: Pick<SendChain, "blockhashValid" | "firstAvailableSlot">,
  attempt: Attempt,
  height: HeightRead | null,
  status: StatusRead,
): Promise<AttemptState> {
  const state = classifyAttempt({ lastValidBlockHeight: attempt.lastValidBlockHeight, height, status });
  if (state.kind !== "expired") return state;
  let valid: boolean;
  let firstSlot: number;
  try {
    valid = (await chain.blockhashValid(attempt.blockhash, status.contextSlot)).valid;
    firstSlot = await chain.firstAvailableSlot();
  } catch (err) {
    return { kind: "pending", reason: `expiry not provable now: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (valid) return { kind: "pending", reason: "the node still accepts the transaction's blockhash" };
  if (firstSlot > attempt.signedAtSlot)
    return {
      kind: "unknown",
      reason: `the node's history starts at slot ${firstSlot}, after slot ${attempt.signedAtSlot} the swap was signed at: it cannot prove the swap absent`,
    };
  return state;
}

export interface BroadcastInput {
  /** The signed transaction, base64: re-sent byte for byte. */
  signedBase64: string;
  attempt: Attempt;
  /** Default 2000 ms. */
  intervalMs?: number;
  /** Rounds before giving up with "pending" (the caller keeps the attempt for reconciliation). */
  maxRounds?: number;
  /**
   * How the bytes go out each round (a Jito bundle: sendBundle); default the RPC's sendTransaction.
   * Either way the outcome is read from the chain by signature.
   */
  send?: (signedBase64: string) => Promise<unknown>;
  signal?: AbortSignal;
}

export interface BroadcastResult {
  state: AttemptState;
  /** Sends made (sendTransaction, or sendBundle). */
  sends: number;
  /** Whether any send errored (the attempt was "maybe sent" at that moment). */
  sendErrors: number;
}

/**
 * Sends and rebroadcasts the same bytes until the attempt is settled. Sends stop once the block
 * height is past lastValidBlockHeight (no node would accept it); reads go on until expiry is proven.
 */
export async function broadcastUntilSettled(
  deps: { chain: SendChain; clock: Pick<Clock, "sleep">; logger?: Logger },
  input: BroadcastInput,
): Promise<BroadcastResult> {
  const interval = input.intervalMs ?? 2_000;
  const maxRounds = input.maxRounds ?? 120;
  const send = input.send ?? ((b64: string) => deps.chain.sendRaw(b64));
  let sends = 0;
  let sendErrors = 0;
  let pastHeight = false;
  let state: AttemptState = { kind: "pending", reason: "not sent yet" };
  for (let round = 0; round < maxRounds && !input.signal?.aborted; round++) {
    if (!pastHeight) {
      sends++;
      try {
        await send(input.signedBase64);
      } catch (err) {
        sendErrors++;
        const r = classifySend(input.attempt.signature, err);
        deps.logger?.warn("send errored; the transaction may have been sent", {
          signature: input.attempt.signature,
          error: r.kind === "maybe-sent" ? r.error : "",
        });
      }
    }
    await deps.clock.sleep(interval, input.signal);
    const look = await lookAtAttempt(deps.chain, input.attempt);
    state = look.state;
    if (state.kind !== "pending") break;
    if (look.pastHeight) pastHeight = true;
  }
  return { state, sends, sendErrors };
}

/**
 * One look at a sent attempt: our node's height and the signature's status, judged (judgeAttempt);
 * `pastHeight` once the chain is past its last valid height, when nothing sent again can land it.
 * An unreadable status leaves it pending.
 */
export async function lookAtAttempt(
  chain: SendChain,
  attempt: Attempt,
): Promise<{ state: AttemptState; pastHeight: boolean }> {
  let height: HeightRead | null = null;
  try {
    height = await chain.readHeight();
  } catch {
    height = null;
  }
  let status: StatusRead;
  try {
    status = await chain.readStatus(attempt.signature);
  } catch (err) {
    const reason = `status unreadable: ${err instanceof Error ? err.message : String(err)}`;
    return { state: { kind: "pending", reason }, pastHeight: false };
  }
  const state = await judgeAttempt(chain, attempt, height, status);
  return { state, pastHeight: height !== null && height.blockHeight > attempt.lastValidBlockHeight };
}
