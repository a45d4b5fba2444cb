// One HTTP POST of a webhook message: a time limit (WEBHOOK_TIMEOUT_SECONDS), redirects never
// followed (a 3xx is a failure: following one would let a public URL bounce the request to a
// private address), only 2xx counts as delivered. The response body is drained, never kept.

export interface SendResult {
  statusCode: number | null;
  /** Why it failed, in words safe to show the user; null when delivered. */
  error: string | null;
  durationMs: number;
}

export interface WebhookSender {
  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult>;
}

export class FetchWebhookSender implements WebhookSender {
  constructor(private readonly timeoutMs = 5_000) {}

  async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const done = (statusCode: number | null, error: string | null): SendResult => ({
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": "trading-agent-webhooks/1", ...headers },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await res.body?.cancel().catch(() => {});
      if (res.status >= 200 && res.status < 300) return done(res.status, null);
      if (res.status >= 300 && res.status < 400) return done(res.status, `Redirect (${res.status}) not followed`);
      return done(res.status, `HTTP ${res.status}`);
    } catch (err) {
      const name = err instanceof Error ? err.name : "";
      if (name === "TimeoutError" || name === "AbortError") return done(null, `Timed out after ${this.timeoutMs} ms`);
      return done(null, `Connection failed${err instanceof Error && "code" in err ? ` (${String(err.code)})` : ""}`);
    }
  }
}
