import { ManualClock } from "../../src/clock.ts";
import type { MarketOptions } from "../../src/market/index.ts";
import { UNLIMITED } from "../../src/market/rate-limiter.ts";
import { SOL_MINT } from "../../src/money.ts";
import { birdeyeRoutes } from "./birdeye.ts";
import { dexScreenerRoutes } from "./dexscreener.ts";
import { HermesStreams, hermesRoutes } from "./hermes.ts";
import { type Hold, Holds } from "./holds.ts";
import { jupiterRoutes } from "./jupiter.ts";
import { LocalServer } from "./local-server.ts";

// ONE fake market on 127.0.0.1 (a Bun.serve on port 0) speaking the wire formats of every
// provider of PRODUCT.md §5, with state tests control: prices, decimals, pairs, quote behaviour,
// whale trades, injected failures (status codes, Retry-After, delays, malformed JSON) and the SSE
// stream (drop, refuse, keep-alive). Point PRICE_NETWORK_URL, SOL_PRICE_FEED_URL,
// SWAP_AGGREGATOR_URL, MARKET_DATA_URL and WHALE_DATA_URL at `fake.url` (fake.env() does).
// test/fakes/README.md lists each endpoint with the real one it imitates.
//
//   const fake = await startFakeMarket();
//   fake.setToken(MINT, { priceUsd: "0.0042", decimals: 6, symbol: "BONK", liquidityUsd: 250_000 });
//   const ctx = await createTestContext({ env: fake.env(), services: fake.serviceOptions() });
//   ...
//   await fake.stop();
//
// New providers (the Solana JSON-RPC fake of the live-trading issue) plug in with fake.use(...).

export type FakeRouteName =
  | "hermes.latest"
  | "hermes.stream"
  | "jupiter.price"
  | "jupiter.quote"
  | "jupiter.swap"
  | "jupiter.order"
  | "jupiter.build"
  | "dexscreener.tokens"
  | "birdeye.txs"
  | (string & {});

/** A response a test forces on the next request(s) of a route. */
export interface InjectedResponse {
  /** HTTP status; default 200 when a body is given, else 500. */
  status?: number;
  /** JSON body (serialized) ... */
  body?: unknown;
  /** ... or raw text, sent as is with content-type application/json (malformed JSON). */
  raw?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (timeouts). With nothing else set, the normal answer follows. */
  delayMs?: number;
}

export interface RecordedRequest {
  route: FakeRouteName | "unmatched";
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
}

export interface FakeToken {
  mint: string;
  symbol: string;
  name: string;
  /** USD per whole token; null: Jupiter cannot price it (absent from Price v3 answers). */
  priceUsd: string | null;
  decimals: number;
  liquidityUsd: number | null;
  marketCapUsd: number | null;
  fdvUsd: number | null;
  volume24hUsd: number | null;
  dexId: string;
  pairAddress: string;
  /** false: DexScreener has no pair for it. */
  listed: boolean;
  /** Raw DexScreener pairs to serve instead of the one built from the fields above. */
  pairs?: unknown[];
}

export interface QuoteBehaviour {
  /** Fraction, as Jupiter sends it ("0.0123" = 1.23 %); also reduces outAmount. */
  priceImpactPct: string;
  routeLabels: string[];
  /** Mints no route exists for (400 COULD_NOT_FIND_ANY_ROUTE). */
  noRoute: Set<string>;
  contextSlot: number;
}

export interface FakeHandlerContext {
  req: Request;
  url: URL;
  body: unknown;
  fake: FakeMarket;
}

export interface FakeRoute {
  name: FakeRouteName;
  method: "GET" | "POST";
  match(path: string): boolean;
  handle(ctx: FakeHandlerContext): Response | Promise<Response>;
}

export interface FakeMarketOptions {
  /** Keys the fake demands (exact match). Without one, any non-empty key is accepted where required. */
  keys?: { priceNetwork?: string; swapAggregator?: string; whaleData?: string };
}

const FAKE_KEYS = {
  priceNetwork: "fake-hermes-key",
  swapAggregator: "fake-jupiter-key",
  whaleData: "fake-birdeye-key",
};

export class FakeMarket extends LocalServer {
  readonly tokens = new Map<string, FakeToken>();
  readonly requests: RecordedRequest[] = [];
  readonly quote: QuoteBehaviour = {
    priceImpactPct: "0",
    routeLabels: ["Raydium"],
    noRoute: new Set(),
    contextSlot: 300_000_000,
  };
  /** Per-mint overrides of the quote behaviour (keyed by the non-SOL mint of the pair). */
  readonly quoteOverrides = new Map<string, Partial<Omit<QuoteBehaviour, "noRoute">>>();
  /** Quote amounts (atomic units, as sent) the aggregator answers with this HTTP status, every time. */
  readonly failingQuoteAmounts = new Map<string, number>();
  /** Birdeye items per token address, in Birdeye's own field names. */
  readonly whaleItems = new Map<string, Array<Record<string, unknown>>>();
  /** Quotes served, by their JSON text: /swap accepts only these, unchanged. */
  readonly issuedQuotes = new Set<string>();
  readonly streams: HermesStreams;
  /** Swap API v2 (/swap/v2/order, /build): the router and fee /order names; v1 answering 404. */
  v2 = { router: "iris", feeBps: 0, prioritizationFeeLamports: 0, v1Retired: false };
  swap = {
    lastValidBlockHeight: 250_000_000,
    blockhash: "EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k",
    computeUnitLimit: 200_000,
    /** Fields laid over every /swap/v1/swap answer (one the service does not use, null or odd). */
    answerPatch: {} as Record<string, unknown>,
  };
  readonly keys: FakeMarketOptions["keys"];
  /** Current Pyth publish time (seconds); advances with every SOL price set. */
  publishTime = 1_767_225_600;
  private readonly routes: FakeRoute[] = [];
  private readonly injected = new Map<string, InjectedResponse[]>();
  private readonly holds = new Holds();

  constructor(opts: FakeMarketOptions = {}) {
    super();
    this.keys = opts.keys;
    this.streams = new HermesStreams(this);
    this.setToken(SOL_MINT, {
      symbol: "SOL",
      name: "Wrapped SOL",
      priceUsd: "150",
      decimals: 9,
      liquidityUsd: 500_000_000,
      marketCapUsd: 80_000_000_000,
    });
    for (const r of [...hermesRoutes(), ...jupiterRoutes(), ...dexScreenerRoutes(), ...birdeyeRoutes()]) this.use(r);
  }

  protected override serveOptions() {
    return { idleTimeout: 0 }; // SSE connections stay open as long as the test wants
  }

  override async stop(): Promise<void> {
    this.streams.closeAll();
    await super.stop();
  }

  /** Adds a provider route (later fakes: Solana JSON-RPC). */
  use(route: FakeRoute): void {
    this.routes.push(route);
  }

  /**
   * Environment pointing every market source at this fake, with keys so that priceNetwork and
   * signalGeneration are configured. Pass `{ PRICE_NETWORK_API_KEY: "" }` etc. to switch one off.
   */
  env(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      PRICE_NETWORK_URL: this.url,
      PRICE_NETWORK_API_KEY: this.keys?.priceNetwork ?? FAKE_KEYS.priceNetwork,
      SOL_PRICE_FEED_URL: this.url,
      SWAP_AGGREGATOR_URL: this.url,
      SWAP_AGGREGATOR_API_KEY: this.keys?.swapAggregator ?? FAKE_KEYS.swapAggregator,
      MARKET_DATA_URL: this.url,
      WHALE_DATA_URL: this.url,
      WHALE_DATA_API_KEY: this.keys?.whaleData ?? FAKE_KEYS.whaleData,
      ...overrides,
    };
  }

  /**
   * ServiceOptions for createTestContext({services}) / createServices: no client-side pacing,
   * back-off and Retry-After waits that do not really wait, and short SOL stream timings.
   */
  serviceOptions(): { market: MarketOptions } {
    return {
      market: {
        limits: { jupiter: UNLIMITED, priceNetwork: UNLIMITED, marketData: UNLIMITED, whaleData: UNLIMITED },
        timer: new ManualClock(),
        tokenPriceCacheTtlMs: 0,
        marketDataCacheTtlMs: 0,
        solPrice: {
          reconnectInitialMs: 10,
          reconnectMaxMs: 50,
          pollIntervalMs: 20,
          idleCheckMs: 5,
          publishIntervalMs: 0,
        },
      },
    };
  }

  // --- state ----------------------------------------------------------------------------------

  /** Sets a token (defaults fill what is not given) and returns it. */
  setToken(mint: string, t: Partial<Omit<FakeToken, "mint">> = {}): FakeToken {
    const prev = this.tokens.get(mint);
    const token: FakeToken = {
      mint,
      symbol: t.symbol ?? prev?.symbol ?? `TKN${this.tokens.size}`,
      name: t.name ?? prev?.name ?? `Token ${this.tokens.size}`,
      priceUsd: t.priceUsd !== undefined ? t.priceUsd : (prev?.priceUsd ?? "1"),
      decimals: t.decimals ?? prev?.decimals ?? 6,
      liquidityUsd: t.liquidityUsd !== undefined ? t.liquidityUsd : (prev?.liquidityUsd ?? 100_000),
      marketCapUsd: t.marketCapUsd !== undefined ? t.marketCapUsd : (prev?.marketCapUsd ?? 1_000_000),
      fdvUsd: t.fdvUsd !== undefined ? t.fdvUsd : (prev?.fdvUsd ?? null),
      volume24hUsd: t.volume24hUsd !== undefined ? t.volume24hUsd : (prev?.volume24hUsd ?? 50_000),
      dexId: t.dexId ?? prev?.dexId ?? "raydium",
      pairAddress: t.pairAddress ?? prev?.pairAddress ?? `Pair${mint.slice(0, 20)}`,
      listed: t.listed ?? prev?.listed ?? true,
      pairs: t.pairs !== undefined ? t.pairs : prev?.pairs,
    };
    this.tokens.set(mint, token);
    return token;
  }

  removeToken(mint: string): void {
    this.tokens.delete(mint);
  }

  /** SOL/USD for Hermes (latest and stream) and Jupiter; pushed to open streams unless told not to. */
  setSolPrice(usd: string | number, opts: { push?: boolean } = {}): void {
    this.setToken(SOL_MINT, { priceUsd: String(usd) });
    this.publishTime += 1;
    if (opts.push !== false) this.streams.pushPrice();
  }

  get solPriceUsd(): string {
    return this.tokens.get(SOL_MINT)?.priceUsd ?? "0";
  }

  /** Whale buys Birdeye reports for a token (newest first is the fake's job). */
  setWhaleTrades(
    token: string,
    trades: Array<{
      txHash: string;
      blockUnixTime: number;
      volumeUsd: number;
      owner?: string;
      side?: "buy" | "sell";
      tokenAmount?: number;
      priceUsd?: number;
      source?: string;
    }>,
  ): void {
    this.whaleItems.set(
      token,
      trades.map((t) => ({
        tx_type: "swap",
        tx_hash: t.txHash,
        block_unix_time: t.blockUnixTime,
        block_number: 300_000_000 + (t.blockUnixTime % 1000),
        volume_usd: t.volumeUsd,
        volume: t.tokenAmount ?? null,
        owner: t.owner ?? "Whale1111111111111111111111111111111111111",
        source: t.source ?? "raydium",
        side: t.side ?? "buy",
        from: {
          address: SOL_MINT,
          symbol: "SOL",
          decimals: 9,
          ui_amount: t.volumeUsd / Number(this.solPriceUsd),
          price: Number(this.solPriceUsd),
        },
        to: {
          address: token,
          symbol: this.tokens.get(token)?.symbol ?? null,
          decimals: this.tokens.get(token)?.decimals ?? 6,
          ui_amount: t.tokenAmount ?? null,
          price: t.priceUsd ?? null,
        },
      })),
    );
  }

  /** The next request(s) of `route` get these answers, in order, before normal service resumes. */
  inject(route: FakeRouteName, ...responses: InjectedResponse[]): void {
    const q = this.injected.get(route) ?? [];
    q.push(...responses);
    this.injected.set(route, q);
  }

  /**
   * The next request of `route` waits, before it is answered, until the test calls release():
   * `reached` resolves when it arrives. Lets a test act while a trade is in flight, without sleeps.
   */
  hold(route: FakeRouteName): Hold {
    return this.holds.add(route);
  }

  clearInjected(): void {
    this.injected.clear();
  }

  requestsTo(route: FakeRouteName): RecordedRequest[] {
    return this.requests.filter((r) => r.route === route);
  }

  /** Drops every open SSE connection (the client should reconnect). */
  dropStreams(): void {
    this.streams.closeAll();
  }

  // --- dispatch -------------------------------------------------------------------------------

  protected async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const route = this.routes.find((r) => r.method === req.method && r.match(url.pathname));
    let body: unknown;
    if (req.method === "POST") {
      const text = await req.text();
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
    }
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => {
      headers[k] = v;
    });
    this.requests.push({
      route: route?.name ?? "unmatched",
      method: req.method,
      path: url.pathname,
      query: url.searchParams,
      headers,
      body,
    });
    if (!route) return Response.json({ error: `No fake route for ${req.method} ${url.pathname}` }, { status: 404 });

    const held = this.holds.take(route.name);
    if (held) await held;
    const forced = this.injected.get(route.name)?.shift();
    if (forced) {
      if (forced.delayMs) await Bun.sleep(forced.delayMs);
      const onlyDelay =
        forced.status === undefined &&
        forced.body === undefined &&
        forced.raw === undefined &&
        forced.headers === undefined;
      if (!onlyDelay) {
        const status = forced.status ?? (forced.body !== undefined || forced.raw !== undefined ? 200 : 500);
        const text = forced.raw ?? (forced.body !== undefined ? JSON.stringify(forced.body) : "");
        return new Response(text, { status, headers: { "content-type": "application/json", ...forced.headers } });
      }
    }
    return route.handle({ req, url, body, fake: this });
  }
}

export async function startFakeMarket(opts: FakeMarketOptions = {}): Promise<FakeMarket> {
  return new FakeMarket(opts).start();
}

/** 400/401 helpers shared by the provider fakes. */
export const jsonError = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
