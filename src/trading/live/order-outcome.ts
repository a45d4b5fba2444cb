import type { Clock } from "../../clock.ts";
import type { Logger } from "../../logger.ts";
import type { ExecuteResponse } from "../../market/jupiter-swap-v2.ts";
import type { SendChain } from "./chain-reads.ts";
import { type Attempt, type AttemptState, lookAtAttempt } from "./outcome.ts";

// The outcome of a signed Jupiter order (SWAP_API=order; docs/decisions.md "Live order path").
// Jupiter lands the transaction (POST /swap/v2/execute); the chain decides what happened:
// - /execute is posted with the same signed bytes and requestId until Jupiter answers. An
//   unanswered post (timeout, 5xx, network error) is "maybe sent": Jupiter may have forwarded
//   it, so it is posted again (Jupiter executes a requestId once and answers the first outcome)
//   while our own reads say the transaction can still land; never a new order meanwhile.
// - Its answer is only a hint: the outcome is the chain's, read by signature with the same proof
//   rules as our own sends (outcome.ts judgeAttempt). "Failed" while the chain shows the
//   signature landed is landed; "Success" the chain has not confirmed yet is pending.
// - Nothing is sent to the chain by us: an order may need Jupiter's handling to land.

export interface OrderExecutor {
  execute(signedTransaction: string, requestId: string): Promise<ExecuteResponse>;
}

export interface ExecuteInput {
  signedBase64: string;
  requestId: string;
  attempt: Attempt;
  intervalMs: number;
  maxRounds: number;
}

export interface ExecuteResult {
  state: AttemptState;
  /** /execute posts made, and how many of them went unanswered. */
  posts: number;
  postErrors: number;
  /** Jupiter's answer, when one came. */
  answer: ExecuteResponse | null;
}

export async function executeUntilSettled(
  deps: { orders: OrderExecutor; chain: SendChain; clock: Pick<Clock, "sleep">; logger: Logger },
  input: ExecuteInput,
): Promise<ExecuteResult> {
  const { attempt } = input;
  let answer: ExecuteResponse | null = null;
  let posts = 0;
  let postErrors = 0;
  let pastHeight = false;
  let state: AttemptState = { kind: "pending", reason: "not executed yet" };
  for (let round = 0; round < input.maxRounds; round++) {
    if (round > 0) await deps.clock.sleep(input.intervalMs);
    if (!answer && !pastHeight) {
      posts++;
      try {
        answer = await deps.orders.execute(input.signedBase64, input.requestId);
        noteAnswer(deps.logger, attempt.signature, input.requestId, answer);
      } catch (err) {
        postErrors++;
        deps.logger.warn("order execute unanswered; the order may have been sent", {
          signature: attempt.signature,
          requestId: input.requestId,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    const look = await lookAtAttempt(deps.chain, attempt);
    state = look.state;
    if (state.kind !== "pending") break;
    // Past our bound of its last valid height no re-post can land it; reads go on until proven.
    if (look.pastHeight) pastHeight = true;
  }
  if (answer?.status === "Failed" && state.kind === "landed")
    deps.logger.warn("order execute said Failed; the chain shows the swap landed", {
      signature: attempt.signature,
      requestId: input.requestId,
      code: answer.code,
    });
  return { state, posts, postErrors, answer };
}

function noteAnswer(log: Logger, signature: string, requestId: string, a: ExecuteResponse): void {
  const ctx = { signature, requestId, status: a.status, code: a.code, error: a.error };
  if (a.signature && a.signature !== signature)
    log.warn("order execute named another signature; the chain is read for ours", {
      ...ctx,
      answeredSignature: a.signature,
    });
  else log.info("order executed", ctx);
}

/**
 * Jupiter's order fee in lamports, when it is taken in SOL (its fee-mint priority list puts SOL
 * first, so every SOL pair pays it in SOL): of the SOL that left on a buy (the chain's input),
 * of the gross SOL on a sale, which the chain shows net of it (net × bps ÷ (10 000 − bps)).
 * An attribution only: moving it from the price to the fees leaves the wallet's total unchanged.
 */
export function orderFeeLamports(side: "BUY" | "SELL", solSideAtomic: bigint, feeBps: number | null): bigint {
  if (!feeBps || feeBps <= 0 || feeBps >= 10_000 || solSideAtomic <= 0n) return 0n;
  const bps = BigInt(feeBps);
  const fee = side === "BUY" ? (solSideAtomic * bps) / 10_000n : (solSideAtomic * bps) / (10_000n - bps);
  // A buy keeps at least one lamport of input (the fill's price stays defined).
  return side === "BUY" && fee >= solSideAtomic ? solSideAtomic - 1n : fee;
}

/**
 * A fill's SOL side with Jupiter's fee moved into `fees`: a buy's input less it, a sale's
 * proceeds plus it (the settlement takes fees from proceeds), so the ledger's SOL still equals
 * the chain's.
 */
export function splitOrderFee<T extends { inputAtomic: bigint; outputAtomic: bigint }>(
  side: "BUY" | "SELL",
  amounts: T,
  feeBps: number | null,
): T & { orderFeeLamports: bigint } {
  const fee = orderFeeLamports(side, side === "BUY" ? amounts.inputAtomic : amounts.outputAtomic, feeBps);
  return side === "BUY"
    ? { ...amounts, inputAtomic: amounts.inputAtomic - fee, orderFeeLamports: fee }
    : { ...amounts, outputAtomic: amounts.outputAtomic + fee, orderFeeLamports: fee };
}
