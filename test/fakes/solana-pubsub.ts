import type { ServerWebSocket } from "bun";
import type { FakeSolanaRpc } from "./solana-rpc.ts";

// A Solana RPC pubsub endpoint on 127.0.0.1 speaking the node's JSON-RPC over a real WebSocket
// (Bun.serve): logsSubscribe with { mentions: [address] } (one address, as a node allows) at
// confirmed or finalized answers a subscription id; logsUnsubscribe answers true; announce()
// sends a logsNotification ({ context: { slot }, value: { signature, err, logs } }) to every
// subscription mentioning one of the transaction's account keys; drop() closes every socket (as a
// node restarting does). Every request is kept in `requests`.

interface Sub {
  id: number;
  address: string;
  ws: ServerWebSocket<unknown>;
}

export class FakeSolanaPubsub {
  private server: ReturnType<typeof Bun.serve> | null = null;
  private readonly subs = new Map<number, Sub>();
  private readonly sockets = new Set<ServerWebSocket<unknown>>();
  private nextSub = 100;
  readonly requests: Array<{ method: string; params: unknown[] }> = [];
  /** Every socket opened so far. */
  connections = 0;

  constructor(private readonly rpc: FakeSolanaRpc) {}

  get url(): string {
    if (!this.server) throw new Error("not started");
    return `ws://127.0.0.1:${this.server.port}`;
  }

  async start(): Promise<this> {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req, server) =>
        server.upgrade(req, { data: undefined }) ? undefined : new Response("websocket only", { status: 400 }),
      websocket: {
        open: (ws) => {
          this.connections++;
          this.sockets.add(ws);
        },
        close: (ws) => {
          this.sockets.delete(ws);
          for (const [id, s] of this.subs) if (s.ws === ws) this.subs.delete(id);
        },
        message: (ws, data) => this.receive(ws, String(data)),
      },
    });
    return this;
  }

  /** Addresses subscribed now. */
  subscribed(): string[] {
    return [...this.subs.values()].map((s) => s.address);
  }

  private receive(ws: ServerWebSocket<unknown>, text: string): void {
    const msg = JSON.parse(text) as { id: number; method: string; params: unknown[] };
    this.requests.push({ method: msg.method, params: msg.params });
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...this.answer(ws, msg) }));
  }

  private answer(ws: ServerWebSocket<unknown>, msg: { method: string; params: unknown[] }): Record<string, unknown> {
    if (msg.method === "logsSubscribe") {
      const filter = msg.params[0] as { mentions?: unknown } | undefined;
      const cfg = (msg.params[1] ?? {}) as { commitment?: string };
      const mentions = filter?.mentions;
      if (!Array.isArray(mentions) || mentions.length !== 1 || typeof mentions[0] !== "string")
        return { error: { code: -32602, message: "Invalid Request: Only 1 address supported" } };
      if (cfg.commitment === "processed") return { error: { code: -32602, message: "unsupported commitment" } };
      const id = this.nextSub++;
      this.subs.set(id, { id, address: mentions[0], ws });
      return { result: id };
    }
    if (msg.method === "logsUnsubscribe") {
      const id = msg.params[0] as number;
      if (this.subs.get(id)?.ws !== ws) return { error: { code: -32602, message: "Invalid subscription id." } };
      this.subs.delete(id);
      return { result: true };
    }
    return { error: { code: -32601, message: "Method not found" } };
  }

  /** Notifies every subscription mentioning one of the landed transaction's keys; returns how many. */
  announce(signature: string): number {
    const tx = this.rpc.txs.get(signature);
    if (!tx) throw new Error(`no transaction ${signature}`);
    const programs = (tx.instructions ?? []).map((ix) => tx.accountKeys[ix.programIdIndex]);
    const logs = programs.flatMap((p) => [`Program ${p} invoke [1]`, `Program ${p} success`]);
    let sent = 0;
    for (const s of this.subs.values()) {
      if (!tx.accountKeys.includes(s.address)) continue;
      s.ws.send(
        JSON.stringify({
          jsonrpc: "2.0",
          method: "logsNotification",
          params: {
            result: { context: { slot: tx.slot }, value: { signature, err: tx.err, logs } },
            subscription: s.id,
          },
        }),
      );
      sent++;
    }
    return sent;
  }

  /** Closes every client socket (the node dropped them). */
  drop(): void {
    for (const ws of this.sockets) ws.close(1012, "restart");
  }

  async stop(): Promise<void> {
    await this.server?.stop(true);
    this.server = null;
  }
}
