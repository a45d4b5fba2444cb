import { Webhook } from "standardwebhooks";

// A webhook receiver on 127.0.0.1 that verifies every request with the `standardwebhooks`
// library, as a user's own system would. It can answer with any status, and go down and come
// back on the same port (the URL the service holds stays valid).

interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** Parsed payload when the signature verified; null otherwise. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | null;
  verifyError: string | null;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Only the requests whose signature verified. */
  verified(): ReceivedWebhook[];
  setSecret(secret: string): void;
  /** The status answered from now on (default 204). */
  respondWith(status: number, headers?: Record<string, string>): void;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hooks"): Promise<WebhookReceiver> {
  let secret: string | null = null;
  let status = 204;
  let extraHeaders: Record<string, string> = {};
  const received: ReceivedWebhook[] = [];

  const handler = async (req: Request): Promise<Response> => {
    const body = await req.text();
    const headers = {
      "webhook-id": req.headers.get("webhook-id") ?? "",
      "webhook-timestamp": req.headers.get("webhook-timestamp") ?? "",
      "webhook-signature": req.headers.get("webhook-signature") ?? "",
    };
    let payload: ReceivedWebhook["payload"] = null;
    let verifyError: string | null = null;
    try {
      if (!secret) throw new Error("receiver has no secret");
      payload = new Webhook(secret).verify(body, headers) as ReceivedWebhook["payload"];
    } catch (err) {
      verifyError = err instanceof Error ? err.message : String(err);
    }
    received.push({
      id: headers["webhook-id"],
      timestamp: headers["webhook-timestamp"],
      signature: headers["webhook-signature"],
      body,
      payload,
      verifyError,
    });
    return new Response(status === 204 ? null : "ok", { status, headers: extraHeaders });
  };

  let server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
  const port = server.port as number;
  let running = true;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    verified: () => received.filter((r) => r.payload !== null),
    setSecret: (s) => {
      secret = s;
    },
    respondWith: (s, h = {}) => {
      status = s;
      extraHeaders = h;
    },
    down: async () => {
      if (!running) return;
      await server.stop(true);
      running = false;
    },
    up: async () => {
      if (running) return;
      server = Bun.serve({ hostname: "127.0.0.1", port, fetch: handler });
      running = true;
    },
    close: async () => {
      if (running) await server.stop(true);
      running = false;
    },
  };
}
