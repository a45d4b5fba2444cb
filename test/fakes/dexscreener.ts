import { Big, SOL_MINT } from "../../src/money.ts";
import { type FakeRoute, type FakeToken, jsonError } from "./market.ts";

// DexScreener (https://docs.dexscreener.com/api/reference):
//   GET /tokens/v1/{chainId}/{tokenAddresses}   (comma-separated, at most 30)
//   → array of pairs {chainId, dexId, url, pairAddress, labels, baseToken{address,name,symbol},
//     quoteToken{...}, priceNative, priceUsd, txns, volume, priceChange, liquidity{usd,base,quote},
//     fdv, marketCap, pairCreatedAt, info}; an unknown address simply has no pair.
// Each fake token is the base of one pair against SOL, unless the test gives raw `pairs`.

const MAX_ADDRESSES = 30;

function dexScreenerPair(t: FakeToken, solPriceUsd: string): Record<string, unknown> {
  const priceNative =
    t.priceUsd !== null && Number(solPriceUsd) > 0
      ? new Big(t.priceUsd).div(solPriceUsd).toFixed(12).replace(/0+$/, "").replace(/\.$/, "")
      : null;
  return {
    chainId: "solana",
    dexId: t.dexId,
    url: `https://dexscreener.com/solana/${t.pairAddress.toLowerCase()}`,
    pairAddress: t.pairAddress,
    labels: ["v4"],
    baseToken: { address: t.mint, name: t.name, symbol: t.symbol },
    quoteToken: { address: SOL_MINT, name: "Wrapped SOL", symbol: "SOL" },
    priceNative,
    priceUsd: t.priceUsd,
    txns: {
      m5: { buys: 3, sells: 2 },
      h1: { buys: 40, sells: 31 },
      h6: { buys: 200, sells: 180 },
      h24: { buys: 900, sells: 850 },
    },
    volume: { h24: t.volume24hUsd, h6: null, h1: null, m5: null },
    priceChange: { m5: 0.1, h1: -0.4, h6: 2.3, h24: 5.1 },
    liquidity: t.liquidityUsd === null ? null : { usd: t.liquidityUsd, base: 1_000_000, quote: 500 },
    fdv: t.fdvUsd,
    marketCap: t.marketCapUsd,
    pairCreatedAt: 1_735_689_600_000,
    info: { imageUrl: null, websites: [], socials: [] },
  };
}

export function dexScreenerRoutes(): FakeRoute[] {
  return [
    {
      name: "dexscreener.tokens",
      method: "GET",
      match: (p) => p.startsWith("/tokens/v1/"),
      handle: ({ url, fake }) => {
        const [, , , chainId, list] = url.pathname.split("/");
        if (!chainId || !list) return jsonError(400, { error: "chainId and tokenAddresses are required" });
        const addresses = decodeURIComponent(list).split(",").filter(Boolean);
        if (addresses.length > MAX_ADDRESSES)
          return jsonError(400, { error: `At most ${MAX_ADDRESSES} token addresses` });
        if (chainId !== "solana") return Response.json([]);
        const pairs: unknown[] = [];
        for (const a of addresses) {
          const t = fake.tokens.get(a);
          if (!t?.listed) continue;
          if (t.pairs) pairs.push(...t.pairs);
          else pairs.push(dexScreenerPair(t, fake.solPriceUsd));
        }
        return Response.json(pairs);
      },
    },
  ];
}
