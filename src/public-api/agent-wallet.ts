import type { AgentRow } from "../agents/ownership.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { AgentWalletRepository } from "../db/repositories/agent-wallets.ts";
import { walletHoldings } from "../db/repositories/balances.ts";
import type { Logger } from "../logger.ts";
import type { SolPriceSource, TokenPriceProvider } from "../market/types.ts";
import { Big, decStr, SOL_MINT } from "../money.ts";

// GET /v1/agents/:agentId/wallet (SPEC "Public API": wallet balances and total USD value). The
// wallet is the one the agent trades with now (its trading mode's). SOL is valued at the SOL/USD
// price, tokens at the swap aggregator's USD prices. A price the market does not know is null,
// never zero, and the token is listed in `unpricedTokens`; `totalValueUsd` adds up the priced
// holdings (docs/decisions.md "Public API and live events").

/** USD amounts are rounded down to this many decimals. */
const USD_DP = 6;

interface WalletHolding {
  tokenAddress: string;
  tokenSymbol: string;
  balance: string;
  priceUsd: string | null;
  valueUsd: string | null;
  lastUpdated: string;
}

export interface AgentWalletValue {
  agentId: string;
  walletType: "simulation" | "live";
  /** null when no wallet of the agent's trading mode is assigned. */
  walletAddress: string | null;
  solPriceUsd: string | null;
  holdings: WalletHolding[];
  /** Sum of the priced holdings; null when something is held but nothing could be priced. */
  totalValueUsd: string | null;
  /** Mints held (non-zero) whose price is unknown: not part of the total. */
  unpricedTokens: string[];
}

export interface WalletPriceSources {
  solPrice: Pick<SolPriceSource, "configured" | "current" | "fetchCurrent">;
  tokenPrices: TokenPriceProvider;
}

export async function valueAgentWallet(
  h: Pick<DatabaseHandle, "sqlite">,
  market: WalletPriceSources,
  logger: Logger,
  agent: AgentRow,
): Promise<AgentWalletValue> {
  const walletType = agent.tradingMode;
  const walletAddress = new AgentWalletRepository(h.sqlite).ofAgentAndType(agent.id, walletType)?.walletAddress ?? null;
  const rows = walletAddress
    ? walletHoldings(h, agent.id, walletAddress)
        // A token sold off leaves a zero row behind; SOL is always shown.
        .filter((r) => r.tokenAddress === SOL_MINT || !new Big(r.balance).eq(0))
    : [];

  const solPriceUsd = rows.some((r) => r.tokenAddress === SOL_MINT) ? await solUsd(market, logger, agent.id) : null;
  const mints = rows.map((r) => r.tokenAddress).filter((m) => m !== SOL_MINT);
  const tokenUsd = mints.length > 0 ? await tokenPricesUsd(market, logger, agent.id, mints) : new Map<string, string>();

  let total = new Big(0);
  let priced = 0;
  const unpricedTokens: string[] = [];
  const holdings = rows.map((r): WalletHolding => {
    const priceUsd = r.tokenAddress === SOL_MINT ? solPriceUsd : (tokenUsd.get(r.tokenAddress) ?? null);
    const held = !new Big(r.balance).eq(0);
    let valueUsd: string | null = null;
    if (priceUsd !== null) {
      const v = new Big(r.balance).times(priceUsd);
      valueUsd = decStr(v, USD_DP);
      total = total.plus(v);
      priced++;
    } else if (held) {
      unpricedTokens.push(r.tokenAddress);
    }
    return {
      tokenAddress: r.tokenAddress,
      tokenSymbol: r.tokenSymbol,
      balance: r.balance,
      priceUsd,
      valueUsd,
      lastUpdated: r.lastUpdated,
    };
  });
  const totalValueUsd = priced === 0 && unpricedTokens.length > 0 ? null : decStr(total, USD_DP);
  return { agentId: agent.id, walletType, walletAddress, solPriceUsd, holdings, totalValueUsd, unpricedTokens };
}

/** The SOL/USD price, or null when no source is configured or all fail (logged). */
async function solUsd(market: WalletPriceSources, logger: Logger, agentId: string): Promise<string | null> {
  if (!market.solPrice.configured) return null;
  try {
    return (market.solPrice.current() ?? (await market.solPrice.fetchCurrent())).price;
  } catch (err) {
    logger.warn("SOL price unavailable for wallet value", {
      agentId,
      error: err instanceof Error ? err.message : String(err),
    });
    return null;
  }
}

/** USD prices of the mints the aggregator knows; a provider failure leaves them all unknown. */
async function tokenPricesUsd(
  market: WalletPriceSources,
  logger: Logger,
  agentId: string,
  mints: string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!market.tokenPrices.configured) return out;
  try {
    for (const [mint, p] of await market.tokenPrices.getPrices(mints)) out.set(mint, p.usd);
  } catch (err) {
    logger.warn("token prices unavailable for wallet value", {
      agentId,
      error: err instanceof Error ? err.message : String(err),
    });
  }
  return out;
}
