import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { auth, createRouter, type Declaration, operation } from "../../operation.ts";
import { errorResponses, jsonContent } from "../../schemas.ts";
import {
  AgentIdPathParam,
  AgentWalletsResponse,
  AssignWalletBody,
  AssignWalletResponse,
  CheckDepositsResponse,
  ResetWalletBody,
  ResetWalletResponse,
  UserWalletSchema,
  WalletAddressParam,
  WalletListQuery,
} from "./schema.ts";

// /api/v1/wallets (SPEC "Wallet endpoints"; PRODUCT.md §3): JWT only, 5 requests per minute per
// user on every path (SPEC "Limits": /wallets/*).

const common = {
  tags: ["wallets"],
  auth: auth.user,
  rateLimit: { limiter: "wallets", key: (c) => `wallets:${c.get("auth").userId}` },
} as const satisfies Pick<Declaration, "auth" | "rateLimit"> & { tags: string[] };
const RESET_MESSAGE = "Simulation wallet reset to its initial state";

const list = operation({
  ...common,
  method: "get",
  path: "/",
  request: { query: WalletListQuery },
  responses: {
    200: {
      description: "Wallets of the user's agents, newest assignment first",
      ...jsonContent(z.array(UserWalletSchema)),
    },
    ...errorResponses(400, 401, 429),
  },
});
const forAgent = operation({
  ...common,
  method: "get",
  path: "/agent/{agentId}",
  request: { params: AgentIdPathParam },
  responses: {
    200: {
      description: "The agent's wallets and the live wallets loaded from the environment",
      ...jsonContent(AgentWalletsResponse),
    },
    ...errorResponses(400, 401, 404, 429),
  },
});
const assign = operation({
  ...common,
  method: "post",
  path: "/assign",
  request: { body: { ...jsonContent(AssignWalletBody), required: true } },
  responses: {
    201: { description: "Assigned (replacing the agent's wallet of that type)", ...jsonContent(AssignWalletResponse) },
    ...errorResponses(400, 401, 404, 409, 429),
  },
});
const resetIndex = operation({
  ...common,
  method: "post",
  path: "/reset",
  request: { body: { ...jsonContent(ResetWalletBody), required: true } },
  responses: {
    200: { description: "Reset (simulation wallets only)", ...jsonContent(ResetWalletResponse) },
    // 409 while a live swap of the wallet's agent is pending or unknown.
    ...errorResponses(400, 401, 404, 409, 429),
  },
});
const reset = operation({
  ...common,
  method: "post",
  path: "/{walletAddress}/reset",
  request: { params: WalletAddressParam },
  responses: {
    200: { description: "Reset (simulation wallets only)", ...jsonContent(ResetWalletResponse) },
    // 409 while a live swap of the wallet's agent is pending or unknown.
    ...errorResponses(400, 401, 404, 409, 429),
  },
});
const checkDeposits = operation({
  ...common,
  method: "post",
  path: "/{walletAddress}/check-deposits",
  request: { params: WalletAddressParam },
  // Live wallets: 409 while a live trade of the wallet awaits confirmation, 502 when the Solana RPC fails.
  responses: {
    200: { description: "Deposits found and the SOL balance after them", ...jsonContent(CheckDepositsResponse) },
    ...errorResponses(400, 401, 404, 409, 429, 502, 503),
  },
});

export function walletRoutes(s: AppDeps) {
  const router = createRouter(s);
  const user = (c: { get(k: "auth"): { userId: string } }) => c.get("auth").userId;

  // /reset and /assign are registered before /{walletAddress}/... (no overlap, but kept explicit).
  return router
    .openapi(list, (c) => c.json(s.wallets.listForUser(user(c), c.req.valid("query")), 200))
    .openapi(forAgent, (c) => c.json(s.wallets.forAgent(user(c), c.req.valid("param").agentId), 200))
    .openapi(assign, (c) => {
      const body = c.req.valid("json");
      const { changed, replaced } = s.wallets.assign(user(c), body);
      const about = { agentId: body.agentId, walletType: body.walletType };
      // Assigning over the agent's wallet of that type unassigns the old one (no other route does).
      if (replaced) audit(c, s, "wallet.unassigned", replaced, about);
      if (changed) audit(c, s, "wallet.assigned", body.walletAddress, about);
      return c.json(
        {
          success: true,
          walletAddress: body.walletAddress,
          walletType: body.walletType,
          message: changed ? "Wallet assigned successfully" : "Wallet already assigned to this agent",
        },
        201,
      );
    })
    .openapi(resetIndex, (c) => {
      s.wallets.reset(user(c), c.req.valid("json").walletAddress);
      return c.json({ success: true, message: RESET_MESSAGE }, 200);
    })
    .openapi(reset, (c) => {
      s.wallets.reset(user(c), c.req.valid("param").walletAddress);
      return c.json({ success: true, message: RESET_MESSAGE }, 200);
    })
    .openapi(checkDeposits, async (c) => {
      const result = await s.wallets.checkDeposits(user(c), c.req.valid("param").walletAddress);
      return c.json({ success: true, ...result }, 200);
    });
}
