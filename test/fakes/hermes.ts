import { SOL_USD_FEED_ID } from "../../src/market/hermes.ts";
import { Big } from "../../src/money.ts";
import type { FakeHandlerContext, FakeMarket, FakeRoute } from "./market.ts";

// Pyth Hermes v2 (https://hermes.pyth.network/docs):
//   GET /v2/updates/price/latest?ids[]=<id>&parsed=true  → {binary:{encoding,data[]}, parsed:[...]}
//   GET /v2/updates/price/stream?ids[]=<id>&parsed=true  → text/event-stream, `data: <same doc>`
// parsed[i] = {id (hex, no 0x), price:{price (integer string), conf, expo, publish_time},
//              ema_price:{...}, metadata:{slot, proof_available_time, prev_publish_time}}.
// Auth: Authorization: Bearer <key> (401 plain text otherwise). Unknown ids: 404 plain text.

const EXPO = -8;
const normalize = (id: string) => id.toLowerCase().replace(/^0x/, "");

/** The Hermes update document for the fake's current SOL price. */
function hermesUpdate(fake: FakeMarket): Record<string, unknown> {
  const price = new Big(fake.solPriceUsd).times(new Big(10).pow(-EXPO)).round(0).toFixed(0);
  const conf = new Big(price).div(2000).round(0).toFixed(0);
  const t = fake.publishTime;
  return {
    binary: { encoding: "hex", data: [Buffer.from(`fake-accumulator-update-${price}-${t}`).toString("hex")] },
    parsed: [
      {
        id: SOL_USD_FEED_ID,
        price: { price, conf, expo: EXPO, publish_time: t },
        ema_price: { price, conf, expo: EXPO, publish_time: t },
        metadata: { slot: 200_000_000 + (t % 100_000), proof_available_time: t + 1, prev_publish_time: t - 1 },
      },
    ],
  };
}

function authorize(ctx: FakeHandlerContext): Response | null {
  const auth = ctx.req.headers.get("authorization") ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(auth);
  const want = ctx.fake.keys?.priceNetwork;
  if (!m || (want !== undefined && m[1] !== want))
    return new Response("Unauthorized", { status: 401, headers: { "content-type": "text/plain" } });
  return null;
}

function checkIds(ctx: FakeHandlerContext): Response | null {
  const ids = ctx.url.searchParams.getAll("ids[]");
  if (ids.length === 0) return new Response("Missing required parameter: ids[]", { status: 400 });
  const unknown = ids.filter((id) => normalize(id) !== SOL_USD_FEED_ID);
  if (unknown.length > 0) return new Response(`Price ids not found: ${unknown.join(", ")}`, { status: 404 });
  return null;
}

const encoder = new TextEncoder();

/** The open SSE connections of the fake and what tests do to them. */
export class HermesStreams {
  /** false: new stream connections are refused with 503 (a provider outage). */
  available = true;
  /** true: price changes are not pushed (a connection that stays open but goes silent). */
  paused = false;
  /** Stream connections accepted so far. */
  connections = 0;
  private readonly open = new Set<ReadableStreamDefaultController<Uint8Array>>();

  constructor(private readonly fake: FakeMarket) {}

  get openCount(): number {
    return this.open.size;
  }

  accept(): Response {
    this.connections++;
    let ctl!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        ctl = c;
        this.open.add(c);
      },
      cancel: () => {
        this.open.delete(ctl);
      },
    });
    // Hermes sends the current value right away, then every update.
    if (!this.paused) this.write(ctl, `data: ${JSON.stringify(hermesUpdate(this.fake))}\n\n`);
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  }

  pushPrice(): void {
    if (this.paused) return;
    this.broadcast(`data: ${JSON.stringify(hermesUpdate(this.fake))}\n\n`);
  }

  /** An SSE comment line, as keep-alive. */
  sendKeepAlive(text = "keep-alive"): void {
    this.broadcast(`: ${text}\n\n`);
  }

  /** Arbitrary bytes on every open stream (malformed events, split chunks). */
  sendRaw(text: string): void {
    this.broadcast(text);
  }

  closeAll(): void {
    for (const c of this.open) {
      try {
        c.close();
      } catch {
        // already closed by the client
      }
    }
    this.open.clear();
  }

  private broadcast(text: string): void {
    for (const c of [...this.open]) this.write(c, text);
  }

  private write(c: ReadableStreamDefaultController<Uint8Array>, text: string): void {
    try {
      c.enqueue(encoder.encode(text));
    } catch {
      this.open.delete(c);
    }
  }
}

export function hermesRoutes(): FakeRoute[] {
  return [
    {
      name: "hermes.latest",
      method: "GET",
      match: (p) => p === "/v2/updates/price/latest",
      handle: (ctx) => authorize(ctx) ?? checkIds(ctx) ?? Response.json(hermesUpdate(ctx.fake)),
    },
    {
      name: "hermes.stream",
      method: "GET",
      match: (p) => p === "/v2/updates/price/stream",
      handle: (ctx) => {
        const refused = authorize(ctx) ?? checkIds(ctx);
        if (refused) return refused;
        if (!ctx.fake.streams.available) return new Response("Service Unavailable", { status: 503 });
        return ctx.fake.streams.accept();
      },
    },
  ];
}
