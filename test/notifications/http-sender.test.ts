import { expect, test } from "bun:test";
import { FetchWebhookSender } from "../../src/notifications/webhooks/http-sender.ts";

// The production sender's time limit: a receiver that never answers is cut off and the attempt
// recorded as a timeout (the service uses 5 s; a short limit keeps this test quick).

test("a receiver that never answers is a timeout failure", async () => {
  let release = () => {};
  const hang = new Promise<void>((r) => {
    release = r;
  });
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async () => {
      await hang;
      return new Response("late");
    },
  });
  try {
    const r = await new FetchWebhookSender(100).send(`http://127.0.0.1:${server.port}/`, {}, "{}");
    expect(r).toMatchObject({ statusCode: null, error: "Timed out after 100 ms" });
  } finally {
    release();
    await server.stop(true);
  }
});

test("a refused connection is a failure naming no URL", async () => {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(null, { status: 204 }) });
  const port = server.port;
  await server.stop(true);
  const r = await new FetchWebhookSender().send(`http://127.0.0.1:${port}/secret-path-token`, {}, "{}");
  expect(r.statusCode).toBeNull();
  expect(r.error).toStartWith("Connection failed");
  expect(r.error).not.toContain("secret-path-token");
});
