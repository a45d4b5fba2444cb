import { createHash } from "node:crypto";

// The Jupiter Aggregator v6 swap instructions, decoded from their bytes as the program's published
// IDL lays them out (issue 40 item 1; docs/decisions/live-inspection-rules.md "What the bytes
// guarantee"). Anchor encoding: an 8-byte discriminator, sha256("global:<name>")[..8], then the
// arguments in Borsh:
//
//   route, route_with_token_ledger, exact_out_route (and shared_accounts_*: an `id: u8` first):
//     route_plan: Vec<RoutePlanStep { swap: Swap, percent: u8, input_index: u8, output_index: u8 }>
//     exact in:  in_amount u64 (not in the token-ledger variants), quoted_out_amount u64
//     exact out: out_amount u64, quoted_in_amount u64
//     slippage_bps u16, platform_fee_bps u8
//   route_v2, exact_out_route_v2 (and shared_accounts_*_v2: `id: u8` first):
//     in_amount | out_amount u64, quoted_out_amount | quoted_in_amount u64, slippage_bps u16,
//     platform_fee_bps u16, positive_slippage_bps u16,
//     route_plan: Vec<RoutePlanStepV2 { swap: Swap, bps: u16, input_index: u8, output_index: u8 }>
//
// The whole instruction is parsed, Swap enum payloads included (SWAP_FIELDS below, variant by
// variant in the IDL's order): a Swap variant this table does not know, a field out of its range
// or a byte left over make the instruction undecodable, and an undecodable instruction is refused
// (default deny). The route plan must be one Jupiter accepts: every step's share above 0, the
// shares out of each token index summing to the whole (100 percent, 10 000 bps), each step's
// input the source (0) or an earlier step's output, never its own output, and the last output
// never spent again.

type SwapKind = "exact_in" | "exact_out" | "ledger";

export interface JupiterSwap {
  name: string;
  kind: SwapKind;
  /** in_amount (exact in), out_amount (exact out); null with a token ledger (the input is not in the bytes). */
  amount: bigint | null;
  /** quoted_out_amount (exact in, ledger), quoted_in_amount (exact out). */
  quoted: bigint;
  slippageBps: number;
  platformFeeBps: number;
  positiveSlippageBps: number;
  steps: Array<{ share: number; input: number; output: number }>;
  /** Byte offset of slippage_bps in the data (where a tighter one is written). */
  slippageAt: number;
}

interface Layout {
  name: string;
  kind: SwapKind;
  shared: boolean;
  v2: boolean;
}

const LAYOUTS: readonly Layout[] = [
  { name: "route", kind: "exact_in", shared: false, v2: false },
  { name: "shared_accounts_route", kind: "exact_in", shared: true, v2: false },
  { name: "route_with_token_ledger", kind: "ledger", shared: false, v2: false },
  { name: "shared_accounts_route_with_token_ledger", kind: "ledger", shared: true, v2: false },
  { name: "exact_out_route", kind: "exact_out", shared: false, v2: false },
  { name: "shared_accounts_exact_out_route", kind: "exact_out", shared: true, v2: false },
  { name: "route_v2", kind: "exact_in", shared: false, v2: true },
  { name: "shared_accounts_route_v2", kind: "exact_in", shared: true, v2: true },
  { name: "exact_out_route_v2", kind: "exact_out", shared: false, v2: true },
  { name: "shared_accounts_exact_out_route_v2", kind: "exact_out", shared: true, v2: true },
];

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const discriminatorOf = (name: string) => hex(createHash("sha256").update(`global:${name}`).digest().subarray(0, 8));
const BY_DISCRIMINATOR = new Map(LAYOUTS.map((l) => [discriminatorOf(l.name), l]));

// The Swap enum's payload per variant, in the IDL's order (index = Borsh variant tag). Fields:
// b bool, s Side (Bid | Ask), 1 u8, 4 u32, 8 u64, 16 u128, r RemainingAccountsInfo (Vec of
// {accounts_type u8, length u8}), R Option<RemainingAccountsInfo>, c Vec<CandidateSwap>, o Option<u8>,
// v Vec<u8>, 5 [u64; 5].
// biome-ignore format: one line per ten variants keeps the index readable
const SWAP_FIELDS: readonly string[] = [
  "", "", "", "", "", "", "", "", "b", "", //                       0 Saber … 8 Crema, 9 Lifinity
  "", "", "s", "", "", "s", "s", "b", "b", "", //                   10 Mercurial … 17 Whirlpool, 18 Invariant, 19 Meteora
  "", "b", "", "b", "s", "", "", "s", "s", "8 8", //                20 GooseFX … 29 Symmetry
  "", "", "", "4", "", "", "", "", "", "s", //                      30 TokenSwapV2 … 33 StakeDexSwapViaStake … 39 OpenBookV2
  "", "4", "1 b b", "1 1 4 4", "1 4", "1 4", "", "b R", "", "", //  40 RaydiumClmmV2 … 47 WhirlpoolSwapV2, 48 OneIntro, 49 PumpWrappedBuy
  "", "", "", "", "", "", "", "", "b", "", //                       50 PumpWrappedSell … 58 Obric, 59 FoxBuyFromEstimatedCost
  "b", "b", "", "", "s", "", "", "", "", "", //                     60 FoxClaimPartial, 61 SolFi … 64 TokenMill … 69 VirtualsBuy
  "", "1 1", "", "", "", "r", "", "", "", "", //                    70 VirtualsSell, 71 Perena … 75 MeteoraDlmmSwapV2 … 79 StabbleStableSwapV2
  "", "8", "8", "", "", "s", "b 1", "8 b", "", "s", //              80 StabbleWeightedSwapV2, 81-82 RaydiumLaunchlab … 87 HumidiFi, 89 TesseraV
  "", "", "", "", "b", "b", "", "", "", "", //                      90 PumpWrappedBuyV2 … 94 Heaven, 95 SolFiV2, 96 Aquifer … 99 PumpSwapBuyV3
  "", "", "", "b R", "b", "", "b", "s", "", "", //                  100 PumpSwapSellV3 … 103 DefiTuna, 104 AlphaQ, 105 RaydiumV2, 106 SarosDlmm, 107 Futarchy … 109 Obsidian
  "s", "c o", "", "", "", "", "s", "b", "8 b", "b", //              110 WhaleStreet, 111 DynamicV1 … 116 Manifest, 117 BisonFi, 118 HumidiFiV2, 119 PerenaStar
  "s v", "b", "16", "5 8", "", //                                   120 JupiterRfqV2, 121 GoonFiV2, 122 Scorch, 123 VaultLiquidUnstake, 124 XOrca
];
/** CandidateSwap (DynamicV1's candidates): HumidiFi, TesseraV, HumidiFiV2. */
const CANDIDATE_FIELDS: readonly string[] = ["8 b", "s", "8 b"];

class Undecodable extends Error {}

class Reader {
  at = 0;
  constructor(readonly d: Uint8Array) {}
  private take(n: number): number {
    if (this.at + n > this.d.length) throw new Undecodable("the data ends early");
    const at = this.at;
    this.at += n;
    return at;
  }
  u8 = () => this.d[this.take(1)]!;
  u16 = () => {
    const at = this.take(2);
    return this.d[at]! | (this.d[at + 1]! << 8);
  };
  u32 = () => new DataView(this.d.buffer, this.d.byteOffset).getUint32(this.take(4), true);
  u64 = () => new DataView(this.d.buffer, this.d.byteOffset).getBigUint64(this.take(8), true);
  skip = (n: number) => void this.take(n);
  /** A Borsh bool, a two-valued enum, an Option tag: 0 or 1, nothing else. */
  flag = (): boolean => {
    const v = this.u8();
    if (v > 1) throw new Undecodable(`a flag of ${v}`);
    return v === 1;
  };
  /** A Borsh Vec's length, bounded by the bytes left (each element at least `min` bytes). */
  len = (min: number): number => {
    const n = this.u32();
    if (n * min > this.d.length - this.at) throw new Undecodable(`a vector of ${n} elements`);
    return n;
  };
}

function readFields(r: Reader, spec: string): void {
  for (const f of spec.split(" ").filter(Boolean)) {
    if (f === "b" || f === "s") r.flag();
    else if (f === "1") r.skip(1);
    else if (f === "4") r.skip(4);
    else if (f === "8") r.skip(8);
    else if (f === "16") r.skip(16);
    else if (f === "5") r.skip(40);
    else if (f === "v") r.skip(r.len(1));
    else if (f === "r" || (f === "R" && r.flag())) r.skip(2 * r.len(2));
    else if (f === "o" && r.flag()) r.skip(1);
    else if (f === "c") for (let n = r.len(1); n > 0; n--) readFields(r, variant(CANDIDATE_FIELDS, r.u8()));
  }
}

function variant(table: readonly string[], tag: number): string {
  const spec = table[tag];
  if (spec === undefined) throw new Undecodable(`a swap variant (${tag}) this service does not know`);
  return spec;
}

function readPlan(r: Reader, v2: boolean): JupiterSwap["steps"] {
  const steps: JupiterSwap["steps"] = [];
  for (let n = r.len(4); n > 0; n--) {
    readFields(r, variant(SWAP_FIELDS, r.u8()));
    steps.push({ share: v2 ? r.u16() : r.u8(), input: r.u8(), output: r.u8() });
  }
  return steps;
}

/** Why a route plan is not one Jupiter would execute as a whole route; null when it is. */
function routePlanFault(steps: JupiterSwap["steps"], whole: number): string | null {
  if (steps.length === 0) return "an empty route plan";
  const shares = new Map<number, number>();
  const reached = new Set([0]);
  for (const s of steps) {
    if (s.share <= 0 || s.share > whole) return `a route step with a share of ${s.share}`;
    if (!reached.has(s.input) || s.input === s.output) return `a route step from token index ${s.input}`;
    shares.set(s.input, (shares.get(s.input) ?? 0) + s.share);
    reached.add(s.output);
  }
  for (const [index, total] of shares)
    if (total !== whole) return `route steps from token index ${index} share ${total} of ${whole}`;
  const last = steps[steps.length - 1]!.output;
  if (shares.has(last)) return "a route whose output is swapped again";
  return null;
}

/**
 * A v6 swap instruction's arguments, or why it cannot be read (an unknown discriminator, an
 * unknown Swap variant, bytes short or left over, a route plan Jupiter would not execute).
 */
export function decodeJupiterSwap(data: Uint8Array): JupiterSwap | { fault: string } {
  const layout = BY_DISCRIMINATOR.get(hex(data.subarray(0, 8)));
  if (!layout) return { fault: "a Jupiter instruction that is not one of its swap instructions" };
  const r = new Reader(data);
  r.skip(8);
  try {
    if (layout.shared) r.u8();
    let steps: JupiterSwap["steps"] = [];
    if (!layout.v2) steps = readPlan(r, false);
    const amount = layout.kind === "ledger" ? null : r.u64();
    const quoted = r.u64();
    const slippageAt = r.at;
    const slippageBps = r.u16();
    const platformFeeBps = layout.v2 ? r.u16() : r.u8();
    const positiveSlippageBps = layout.v2 ? r.u16() : 0;
    if (layout.v2) steps = readPlan(r, true);
    if (r.at !== data.length) return { fault: `${layout.name} with ${data.length - r.at} bytes left over` };
    const fault = routePlanFault(steps, layout.v2 ? 10_000 : 100);
    if (fault) return { fault: `${layout.name}: ${fault}` };
    return {
      name: layout.name,
      kind: layout.kind,
      amount,
      quoted,
      slippageBps,
      platformFeeBps,
      positiveSlippageBps,
      steps,
      slippageAt,
    };
  } catch (err) {
    if (err instanceof Undecodable) return { fault: `${layout.name}: ${err.message}` };
    throw err;
  }
}
