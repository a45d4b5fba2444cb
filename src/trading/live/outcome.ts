import type { Clock } from "../../clock.ts";
import type { Logger } from "../../logger.ts";
import type { HeightRead, SendChain, StatusRead } from "./chain-reads.ts";

// What happened to a signed transaction (issue 15 "Outcomes" and "Sending"):
// - A send that errors is "maybe sent": the node may have forwarded it before failing to answer
//   (a timeout, a 5xx, a load balancer's error after the leader got it). Its signature is known
//   before sending, so it is reconciled by signature, never retried as a new transaction.
// - "expired" only when proven: the finalized block height is past the blockhash's
//   lastValidBlockHeight (so no block can include it any more), and a status read answered at a
//   context slot at or after that height read does not know the signature. A lagging node (an
//   older context slot) proves nothing: the answer stays "pending".
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
  | { kind: "expired"; provenAtSlot: number };

/**
 * Classifies one status read. `height` must have been read BEFORE `status`; `null` when it could
 * not be read. Only a confirmed or finalized status counts as landed.
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

export interface BroadcastInput {
  /** The signed transaction, base64: re-sent byte for byte. */
  signedBase64: string;
  signature: string;
  lastValidBlockHeight: number;
  /** Default 2000 ms. */
  intervalMs?: number;
  /** Rounds before giving up with "pending" (the caller keeps the attempt for reconciliation). */
  maxRounds?: number;
  signal?: AbortSignal;
}

export interface BroadcastResult {
  state: AttemptState;
  /** sendTransaction calls made. */
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
  let sends = 0;
  let sendErrors = 0;
  let pastHeight = false;
  let state: AttemptState = { kind: "pending", reason: "not sent yet" };
  for (let round = 0; round < maxRounds && !input.signal?.aborted; round++) {
    if (!pastHeight) {
      sends++;
      try {
        await deps.chain.sendRaw(input.signedBase64);
      } catch (err) {
        sendErrors++;
        const r = classifySend(input.signature, err);
        deps.logger?.warn("send errored; the transaction may have been sent", {
          signature: input.signature,
          error: r.kind === "maybe-sent" ? r.error : "",
        });
      }
    }
    await deps.clock.sleep(interval, input.signal);
    let height: HeightRead | null = null;
    try {
      height = await deps.chain.readHeight();
    } catch {
      height = null;
    }
    let status: StatusRead;
    try {
      status = await deps.chain.readStatus(input.signature);
    } catch (err) {
      state = { kind: "pending", reason: `status unreadable: ${err instanceof Error ? err.message : String(err)}` };
      continue;
    }
    state = classifyAttempt({ lastValidBlockHeight: input.lastValidBlockHeight, height, status });
    if (state.kind !== "pending") break;
    if (height && height.blockHeight > input.lastValidBlockHeight) pastHeight = true;
  }
  return { state, sends, sendErrors };
}
