import type { TCPSocketListener } from "bun";

// A TCP listener on 127.0.0.1 that counts connections and closes each at once: point every
// outside URL at it, and `connections` proves whether anything tried to leave the host.

export interface Trap {
  url: string;
  readonly connections: number;
  /** Every source URL variable pointed at the trap. */
  env(): Record<string, string>;
  stop(): void;
}

export function startTrap(): Trap {
  let connections = 0;
  const listener: TCPSocketListener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        connections++;
        socket.end();
      },
      data() {},
    },
  });
  const url = `http://127.0.0.1:${listener.port}`;
  return {
    url,
    get connections() {
      return connections;
    },
    env: () => ({
      PRICE_NETWORK_URL: url,
      PRICE_NETWORK_API_KEY: "demo-test-key",
      SOL_PRICE_FEED_URL: url,
      SWAP_AGGREGATOR_URL: url,
      MARKET_DATA_URL: url,
      WHALE_DATA_URL: url,
      WHALE_DATA_API_KEY: "demo-test-key",
      SOLANA_RPC_URL: url,
      SOLANA_CONFIRM_RPC_URL: url,
      SOLANA_WS_URL: url.replace(/^http/, "ws"),
      HISTORY_DATA_URL: url,
      JITO_BLOCK_ENGINE_URL: url,
      TELEGRAM_API_URL: url,
    }),
    stop: () => listener.stop(true),
  };
}
