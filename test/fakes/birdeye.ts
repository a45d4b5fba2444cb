import { type FakeRoute, jsonError } from "./market.ts";

// Birdeye "Trades - Token Filtered By Volume (V3)"
// (https://docs.birdeye.so/reference/get-defi-v3-token-txs-by-volume):
//   GET /defi/v3/token/txs-by-volume?token_address&volume_type=usd|amount&min_volume&max_volume
//       &tx_type=buy|sell|all&sort_by=block_unix_time&sort_type=desc|asc&offset&limit (≤ 500)
//   headers X-API-KEY (401 {success:false, message:"Unauthorized"}) and x-chain: solana
//   → {success: true, data: {items: [{tx_type, tx_hash, block_unix_time, block_number, volume_usd,
//      volume, owner, source, side, from{address,symbol,decimals,ui_amount,price}, to{...}}],
//      has_next}}; a bad parameter is 400 {success:false, message}.

export function birdeyeRoutes(): FakeRoute[] {
  return [
    {
      name: "birdeye.txs",
      method: "GET",
      match: (p) => p === "/defi/v3/token/txs-by-volume",
      handle: ({ req, url, fake }) => {
        const key = req.headers.get("x-api-key");
        const want = fake.keys?.whaleData;
        if (!key || (want !== undefined && key !== want))
          return jsonError(401, { success: false, message: "Unauthorized" });
        if (req.headers.get("x-chain") !== "solana")
          return jsonError(400, {
            success: false,
            message: "Chain not supported; x-chain must be solana for this endpoint",
          });
        const q = url.searchParams;
        const token = q.get("token_address");
        if (!token) return jsonError(400, { success: false, message: "token_address is required" });
        const volumeType = q.get("volume_type") ?? "usd";
        if (volumeType !== "usd" && volumeType !== "amount")
          return jsonError(400, { success: false, message: "volume_type invalid format" });
        const txType = q.get("tx_type") ?? "swap";
        const minVolume = Number(q.get("min_volume") ?? 0);
        const offset = Number(q.get("offset") ?? 0);
        const limit = Number(q.get("limit") ?? 50);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500)
          return jsonError(400, { success: false, message: "limit must be between 1 and 500" });
        const asc = q.get("sort_type") === "asc";
        const items = (fake.whaleItems.get(token) ?? [])
          .filter((it) => txType === "all" || txType === "swap" || it.side === txType)
          .filter((it) => Number(volumeType === "usd" ? it.volume_usd : it.volume) >= minVolume)
          .sort((a, b) => (asc ? 1 : -1) * (Number(a.block_unix_time) - Number(b.block_unix_time)));
        return Response.json({
          success: true,
          data: { items: items.slice(offset, offset + limit), has_next: items.length > offset + limit },
        });
      },
    },
  ];
}
