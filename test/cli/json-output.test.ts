import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_TOKENS } from "../../src/market/demo/tokens.ts";
import { startChildService } from "../helpers/child-service.ts";
import { ADMIN_EMAIL, ADMIN_PASSWORD } from "../helpers/context.ts";

// Every line the running service writes on stdout and stderr is one JSON object (issue 13 item
// 3), Bun's own warnings included: `npm start | jq` must never stop on a parse error. Bun prints
// "warn: Bun.serve() timed out a request…" in plain text when it closes an idle request and
// idleTimeout was left unset; the service always sets it (HTTP_IDLE_TIMEOUT_SECONDS). Here it is
// 1 s, so an idle request is closed quickly: the test waits for that close (bounded), then reads
// the whole output.

test("a session of the service (demo market, idle request, errors, stop) prints only JSON lines", async () => {
  const dir = mkdtempSync(join(tmpdir(), "json-output-"));
  const svc = await startChildService({
    DEMO_MARKET: "true",
    SOLANA_RPC_URL: "",
    HTTP_IDLE_TIMEOUT_SECONDS: "1",
    LOG_LEVEL: "debug",
    DATABASE_PATH: join(dir, "trading.db"),
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
  });
  try {
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${svc.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    expect((await post("/api/v1/auth/login", { email: ADMIN_EMAIL, password: "wrong" })).status).toBe(401);
    const { accessToken } = (await (
      await post("/api/v1/auth/login", { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
    ).json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${accessToken}` };
    const { key } = (await (await post("/api/v1/api-keys", { name: "k", scopes: ["signals"] }, auth)).json()) as {
      key: string;
    };
    const signal = await post(
      "/api/v1/trading-signals",
      { tokenAddress: DEMO_TOKENS[0]!.address, signalType: "buy", signalStrength: 3 },
      { "x-api-key": key },
    );
    expect(signal.status).toBe(201);
    expect((await post("/api/v1/trading-signals", { tokenAddress: "BONK" }, { "x-api-key": key })).status).toBe(400);
    expect((await fetch(`${svc.url}/nowhere`)).status).toBe(404);
    expect((await fetch(`${svc.url}/metrics`)).status).toBe(200);

    // An idle request: headers promise a body that never comes.
    let closed: () => void = () => {};
    const closedByServer = new Promise<void>((resolve) => (closed = resolve));
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: svc.port,
      socket: { data() {}, close: () => closed(), end: () => closed() },
    });
    socket.write(
      "POST /api/v1/auth/login HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{",
    );
    const timedOut = await Promise.race([closedByServer.then(() => true), Bun.sleep(20_000).then(() => false)]);
    expect(timedOut, "the server closes an idle request").toBe(true);

    expect(await svc.stop("SIGTERM")).toBe(0);
    const lines = svc
      .output()
      .split("\n")
      .filter((l) => l !== "");
    expect(lines.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
    for (const line of lines) {
      const text = line.replace(/^\[(out|err)\] /, "");
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      expect(
        typeof parsed === "object" && parsed !== null && !Array.isArray(parsed),
        `not a JSON object: ${line}`,
      ).toBe(true);
    }
  } finally {
    await svc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
