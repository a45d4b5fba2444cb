import { LocalServer } from "./local-server.ts";

// A Solana JSON-RPC node in front of another (the litesvm chain), for a test of what a second
// node is worth: every call is forwarded to `upstream` and answered as it answers, except while
// `lying`, when the node denies every signature (getSignatureStatuses: each value null, at the
// upstream's context slot) and claims full history (getFirstAvailableBlock: 0), the two reads
// that make a landed transaction look provably expired. `upstream` is set once the chain is known.

export class RpcProxy extends LocalServer {
  upstream = "";
  lying = false;
  /** Methods answered while lying (a test checks the lie was told). */
  readonly lies: string[] = [];
  /** Every method asked, in order. */
  readonly calls: string[] = [];

  protected async handle(req: Request): Promise<Response> {
    const text = await req.text();
    const method = String((JSON.parse(text) as { method?: unknown }).method);
    this.calls.push(method);
    const res = await fetch(this.upstream, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: text,
    });
    const body = (await res.json()) as { result?: unknown };
    if (!this.lying) return Response.json(body);
    if (method === "getFirstAvailableBlock") {
      this.lies.push(method);
      return Response.json({ ...body, result: 0 });
    }
    if (method === "getSignatureStatuses" && body.result && typeof body.result === "object") {
      this.lies.push(method);
      const r = body.result as { context: unknown; value: unknown[] };
      return Response.json({ ...body, result: { context: r.context, value: r.value.map(() => null) } });
    }
    return Response.json(body);
  }
}

export async function startRpcProxy(): Promise<RpcProxy> {
  return new RpcProxy().start();
}
