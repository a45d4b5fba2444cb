import { Big } from "../money.ts";
import { int, obj, str } from "./fields.ts";
import { type HttpClient, unexpectedResponse } from "./http-client.ts";

// Pyth Hermes v2 (PRODUCT.md §5, priceNetwork). Both endpoints answer the same document
//   {binary: {encoding, data: [...]}, parsed: [{id, price: {price, conf, expo, publish_time},
//    ema_price: {...}, metadata: {...}}]}
// GET /v2/updates/price/latest?ids[]=<feed>           once (polled while the stream is down)
// GET /v2/updates/price/stream?ids[]=<feed>           Server-Sent Events, one document per `data:`
// The value is price × 10^expo (price an integer string, expo a negative integer).

/** Pyth SOL/USD price feed id. */
export const SOL_USD_FEED_ID = "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d";

const normalizeId = (id: string) => id.toLowerCase().replace(/^0x/, "");

export class HermesClient {
  constructor(
    readonly http: HttpClient,
    readonly feedId: string = SOL_USD_FEED_ID,
  ) {}

  /** The feed's latest price. */
  async latest(signal?: AbortSignal): Promise<Big> {
    const body = await this.http.getJson(
      "/v2/updates/price/latest",
      { "ids[]": [this.feedId], parsed: "true" },
      signal,
    );
    const price = priceFromUpdate(body, this.feedId);
    if (price === null) throw unexpectedResponse(this.http.service, "no parsed price for the SOL/USD feed");
    return price;
  }

  /** Opens the SSE stream of the feed; abort `signal` to close it. */
  openStream(signal: AbortSignal): Promise<Response> {
    return this.http.openStream("/v2/updates/price/stream", { "ids[]": [this.feedId], parsed: "true" }, signal);
  }
}

/** The feed's price from a Hermes update document, or null when it carries none (or nonsense). */
export function priceFromUpdate(body: unknown, feedId: string): Big | null {
  const parsed = obj(body)?.parsed;
  if (!Array.isArray(parsed)) return null;
  const want = normalizeId(feedId);
  for (const item of parsed) {
    const entry = obj(item);
    const id = str(entry?.id);
    if (!id || normalizeId(id) !== want) continue;
    const p = obj(entry?.price);
    const raw = str(p?.price) ?? (typeof p?.price === "number" ? String(p.price) : null);
    const expo = int(p?.expo);
    if (raw === null || !/^-?\d+$/.test(raw) || expo === null || expo < -30 || expo > 30) return null;
    const value = new Big(raw).times(new Big(10).pow(expo));
    return value.gt(0) ? value : null;
  }
  return null;
}
