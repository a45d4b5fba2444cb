import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestContext, json, type TestContext } from "../helpers/context.ts";

// Every route of this area is in the OpenAPI document (PRODUCT.md §6: generated from the same
// zod schemas that validate requests).

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

test("agent, wallet and ledger routes appear in /api/v1/openapi.json", async () => {
  const res = await ctx.request("GET", "/api/v1/openapi.json");
  expect(res.status).toBe(200);
  const doc = await json(res);
  const expected: Record<string, string[]> = {
    "/api/v1/agents": ["get", "post"],
    "/api/v1/agents/{id}": ["delete", "get", "put"],
    "/api/v1/agents/{id}/config": ["get", "put"],
    "/api/v1/agents/{id}/positions": ["get"],
    "/api/v1/agents/{id}/performance": ["get"],
    "/api/v1/agents/{id}/balance-history": ["get"],
    "/api/v1/wallets": ["get"],
    "/api/v1/wallets/agent/{agentId}": ["get"],
    "/api/v1/wallets/assign": ["post"],
    "/api/v1/wallets/reset": ["post"],
    "/api/v1/wallets/{walletAddress}/reset": ["post"],
    "/api/v1/wallets/{walletAddress}/check-deposits": ["post"],
    "/api/v1/agent-balances": ["get", "post"],
    "/api/v1/agent-balances/{id}": ["delete", "get", "put"],
    "/api/v1/agent-transactions": ["get", "post"],
    "/api/v1/agent-transactions/{id}": ["delete", "get", "put"],
    "/api/v1/agent-historical-swaps": ["get", "post"],
    "/api/v1/agent-historical-swaps/export": ["get"],
    "/api/v1/agent-historical-swaps/{id}": ["delete", "get", "put"],
  };
  for (const [path, methods] of Object.entries(expected)) {
    expect(doc.paths[path], path).toBeDefined();
    expect(Object.keys(doc.paths[path]).sort(), path).toEqual(methods);
  }
  // The configuration update documents the partial schema, with its example.
  const put = doc.paths["/api/v1/agents/{id}/config"].put;
  expect(put.requestBody.content["application/json"].schema.$ref).toBe("#/components/schemas/AgentConfigUpdateRequest");
  expect(doc.components.schemas.AgentConfigUpdateRequest.example).toEqual({
    config: { stopLoss: { percentage: 15 }, takeProfit: { enabled: true } },
  });
});
