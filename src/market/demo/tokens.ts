import { SOL_MINT } from "../../money.ts";

// The demo market's tokens (README "Demo market"). Made-up tokens with fixed,
// readable addresses: "Demo" + the name, padded with "1" to 43 base58 characters, which decodes to
// exactly 32 bytes like every Solana public key (the same trick as SOL's own So111…112), so they
// pass the tokenAddress validation and can never be mistaken for a real mint.

export interface DemoToken {
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  /** USD per whole token at the start of the walk, and the level it reverts to. */
  basePriceUsd: number;
  /** Whole tokens in circulation: market cap = price × supply. */
  supply: number;
  /** USD in the demo pool at the base price (half SOL, half token). */
  baseLiquidityUsd: number;
  /** Standard deviation of the log price per walk step (5 s). */
  volatility: number;
}

/** Pads "Demo<Name>" with "1"s to the 43 characters of a 32-byte base58 address. */
export const demoAddress = (name: string): string => `Demo${name}`.padEnd(43, "1");

type Row = [
  name: string,
  symbol: string,
  decimals: number,
  priceUsd: number,
  marketCapUsd: number,
  liquidityUsd: number,
  volatility: number,
];

// Names use only base58 letters (no 0, O, I or l).
const ROWS: Row[] = [
  ["Pup", "PUP", 5, 0.0000214, 1_450_000_000, 95_000_000, 0.002],
  ["Frog", "FROG", 6, 1.87, 1_870_000_000, 60_000_000, 0.0025],
  ["Moon", "MOON", 6, 0.0042, 4_200_000, 310_000, 0.006],
  ["Gem", "GEM", 6, 0.183, 183_000_000, 9_500_000, 0.003],
  ["Rock", "ROCK", 9, 0.0751, 75_100_000, 4_100_000, 0.0035],
  ["Kitty", "KITTY", 6, 0.000913, 913_000, 88_000, 0.008],
  ["Duck", "DUCK", 6, 0.0277, 27_700_000, 1_900_000, 0.004],
  ["Wave", "WAVE", 8, 3.42, 342_000_000, 21_000_000, 0.002],
  ["Comet", "COMET", 6, 0.00061, 610_000, 64_000, 0.009],
  ["Nova", "NOVA", 9, 12.6, 1_260_000_000, 74_000_000, 0.0015],
  ["Paws", "PAWS", 6, 0.0159, 15_900_000, 1_050_000, 0.0045],
  ["Rocket", "ROCKET", 6, 0.000187, 1_870_000, 150_000, 0.007],
  ["Mango", "MANGO", 6, 0.0513, 51_300_000, 2_600_000, 0.0035],
  ["Tiger", "TIGER", 6, 0.00344, 3_440_000, 260_000, 0.006],
  ["Sushi", "SUSHI", 6, 0.712, 71_200_000, 5_300_000, 0.003],
  ["Ape", "APE", 6, 0.0000891, 891_000, 72_000, 0.009],
  ["Shark", "SHARK", 6, 0.236, 236_000_000, 12_400_000, 0.0025],
  ["Cactus", "CACTUS", 6, 0.00128, 1_280_000, 110_000, 0.0075],
  ["Dragon", "DRAGON", 6, 0.0962, 96_200_000, 5_800_000, 0.003],
  ["Snow", "SNOW", 6, 0.0068, 6_800_000, 470_000, 0.005],
  ["Turbo", "TURBO", 6, 0.000452, 4_520_000, 330_000, 0.0065],
  ["Quack", "QUACK", 6, 0.0000317, 317_000, 41_000, 0.01],
  ["Ember", "EMBER", 9, 5.91, 591_000_000, 33_000_000, 0.002],
  ["Hippo", "HIPPO", 6, 0.0234, 23_400_000, 1_600_000, 0.004],
  ["Gecko", "GECKO", 6, 0.00281, 2_810_000, 205_000, 0.0065],
  ["Zebra", "ZEBRA", 6, 0.149, 14_900_000, 980_000, 0.0045],
  ["Panda", "PANDA", 6, 0.00093, 9_300_000, 640_000, 0.0055],
  ["Bear", "BEAR", 6, 0.0391, 39_100_000, 2_300_000, 0.0035],
  ["Fox", "FOX", 6, 0.00517, 5_170_000, 390_000, 0.006],
  ["Storm", "STORM", 6, 0.0000654, 654_000, 58_000, 0.0095],
];

export const DEMO_TOKENS: readonly DemoToken[] = Object.freeze(
  ROWS.map(([name, symbol, decimals, price, marketCap, liquidity, volatility]) => ({
    address: demoAddress(name),
    symbol,
    name: `Demo ${name}`,
    decimals,
    basePriceUsd: price,
    supply: marketCap / price,
    baseLiquidityUsd: liquidity,
    volatility,
  })),
);

/** SOL/USD walks like a token: base 150 USD, low volatility. */
export const DEMO_SOL: DemoToken = Object.freeze({
  address: SOL_MINT,
  symbol: "SOL",
  name: "Wrapped SOL",
  decimals: 9,
  basePriceUsd: 150,
  supply: 580_000_000,
  baseLiquidityUsd: 0,
  volatility: 0.0006,
});

export const DEMO_TOKEN_BY_ADDRESS: ReadonlyMap<string, DemoToken> = new Map(DEMO_TOKENS.map((t) => [t.address, t]));
