import type { Logger } from "../logger.ts";

// The standard Solana RPC websocket (pubsub JSON-RPC) as copy trading uses it
// (docs/decisions/copy-trading-steering.md): one socket, a `logsSubscribe` per followed address
// (`mentions: [address]`, commitment `confirmed`), each notification handed on with the
// transaction's signature, error and log lines. A dropped socket reconnects with exponential
// backoff and subscribes every address again; what the socket missed meanwhile the watcher's
// poll catches. Addresses are added and removed as watches change (`logsUnsubscribe`).

export interface LogsNotification {
  address: string;
  signature: string;
  err: unknown;
  logs: string[];
}

export interface PubsubOptions {
  url: string;
  logger: Logger;
  /** First reconnect delay and its ceiling, milliseconds (doubling in between). */
  backoffMs?: { first: number; max: number };
}

type Pending = { address: string; kind: "subscribe" } | { address: string; kind: "unsubscribe" };

export class SolanaLogsStream {
  private socket: WebSocket | null = null;
  private readonly wanted = new Set<string>();
  /** Subscription id → address, and back, for the current socket. */
  private readonly bySub = new Map<number, string>();
  private readonly subOf = new Map<string, number>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stopped = true;
  private delay: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly listeners: Array<(n: LogsNotification) => void> = [];
  private readonly log: Logger;
  /** Times the socket opened (1 + reconnects), for the status and tests. */
  connections = 0;

  constructor(private readonly o: PubsubOptions) {
    this.delay = o.backoffMs?.first ?? 500;
    this.log = o.logger.child({ component: "solana-pubsub" });
  }

  onNotification(listener: (n: LogsNotification) => void): void {
    this.listeners.push(listener);
  }

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  /** Connects once there is an address to follow (a service with no watches opens no socket). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.wanted.size > 0) this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.socket?.close();
    this.socket = null;
  }

  /** The addresses to follow: subscribes the new ones, unsubscribes those no longer wanted. */
  follow(addresses: Iterable<string>): void {
    const next = new Set(addresses);
    for (const a of [...this.wanted]) if (!next.has(a)) this.unsubscribe(a);
    for (const a of next)
      if (!this.wanted.has(a)) {
        this.wanted.add(a);
        this.subscribe(a);
      }
    if (!this.stopped && !this.socket && !this.timer && this.wanted.size > 0) this.connect();
  }

  private send(method: string, params: unknown[], p: Pending): void {
    if (!this.connected) return;
    const id = this.nextId++;
    this.pending.set(id, p);
    this.socket!.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  }

  private subscribe(address: string): void {
    this.send("logsSubscribe", [{ mentions: [address] }, { commitment: "confirmed" }], { address, kind: "subscribe" });
  }

  private unsubscribe(address: string): void {
    this.wanted.delete(address);
    const sub = this.subOf.get(address);
    if (sub === undefined) return;
    this.subOf.delete(address);
    this.bySub.delete(sub);
    this.send("logsUnsubscribe", [sub], { address, kind: "unsubscribe" });
  }

  private connect(): void {
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.o.url);
    } catch (err) {
      this.log.warn("pubsub connection failed", { error: err instanceof Error ? err.message : String(err) });
      this.reconnectLater();
      return;
    }
    this.socket = ws;
    ws.onopen = () => {
      this.connections++;
      this.delay = this.o.backoffMs?.first ?? 500;
      this.log.info("pubsub connected", { addresses: this.wanted.size });
      for (const a of this.wanted) this.subscribe(a);
    };
    ws.onmessage = (ev) => this.receive(String(ev.data));
    ws.onclose = () => {
      if (this.socket !== ws) return;
      this.socket = null;
      this.bySub.clear();
      this.subOf.clear();
      this.pending.clear();
      if (!this.stopped) {
        this.log.warn("pubsub socket closed; reconnecting", { inMs: this.delay });
        this.reconnectLater();
      }
    };
    ws.onerror = () => {
      // onclose follows and reconnects
    };
  }

  private reconnectLater(): void {
    if (this.stopped || this.timer) return;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.o.backoffMs?.max ?? 30_000);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped) this.connect();
    }, wait);
  }

  private receive(text: string): void {
    // biome-ignore lint/suspicious/noExplicitAny: pubsub JSON read defensively, every field checked
    let msg: any;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof msg?.id === "number") {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (p?.kind === "subscribe" && typeof msg.result === "number" && this.wanted.has(p.address)) {
        this.bySub.set(msg.result, p.address);
        this.subOf.set(p.address, msg.result);
      } else if (p?.kind === "subscribe")
        this.log.warn("pubsub subscription refused", { address: p.address, error: msg.error?.message ?? null });
      return;
    }
    if (msg?.method !== "logsNotification") return;
    const address = this.bySub.get(msg.params?.subscription);
    const value = msg.params?.result?.value;
    if (!address || typeof value?.signature !== "string") return;
    const n: LogsNotification = {
      address,
      signature: value.signature,
      err: value.err ?? null,
      logs: Array.isArray(value.logs) ? value.logs.map(String) : [],
    };
    for (const l of this.listeners) l(n);
  }
}

/** SOLANA_WS_URL, or the RPC URL with http→ws, https→wss; null when neither is set. */
export function pubsubUrl(wsUrl: string | undefined, rpcUrl: string): string | null {
  if (wsUrl !== undefined) return wsUrl === "" ? null : wsUrl;
  if (rpcUrl === "") return null;
  return rpcUrl.replace(/^http(s?):\/\//, (_m, s: string) => `ws${s}://`);
}
