// The HTTP baseline: a bare Bun.serve on 127.0.0.1 doing the least the same request needs, run
// as its own process like the service. BENCH_MODE:
//   get-json     answers every request with the JSON text in BENCH_BODY_FILE (the service's own
//                answer, captured), so both send the same bytes;
//   accept-json  parses the JSON request body and answers 201 with it plus an id;
//   stream-csv   streams BENCH_LINES lines of BENCH_LINE_BYTES bytes as text/csv, 500 lines per
//                pull of a ReadableStream, as the service's CSV export does (its memory baseline);
//   health       answers {"status":"ok"} (the footprint baseline, compiled as a binary).
// PORT picks the port.

const mode = process.env.BENCH_MODE ?? "health";
const port = Number(process.env.PORT ?? 0);
const bodyText = mode === "get-json" ? await Bun.file(process.env.BENCH_BODY_FILE ?? "").text() : "";
let next = 1;

Bun.serve({
  hostname: "127.0.0.1",
  port,
  async fetch(req) {
    if (mode === "get-json") return new Response(bodyText, { headers: { "content-type": "application/json" } });
    if (mode === "stream-csv" && new URL(req.url).pathname === "/export") {
      const lines = Number(process.env.BENCH_LINES ?? 0);
      const line = `${"x".repeat(Math.max(0, Number(process.env.BENCH_LINE_BYTES ?? 100) - 2))}\r\n`;
      const enc = new TextEncoder();
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          let chunk = "";
          for (let i = 0; i < 500 && sent < lines; i++, sent++) chunk += line;
          if (chunk) controller.enqueue(enc.encode(chunk));
          if (sent >= lines) controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/csv; charset=utf-8" } });
    }
    if (mode === "accept-json" && req.method === "POST") {
      const body = (await req.json()) as Record<string, unknown>;
      return Response.json({ id: next++, ...body }, { status: 201 });
    }
    return Response.json({ status: "ok" });
  },
});

export {};
