import { z } from "@hono/zod-openapi";
import type { AppDeps } from "../../app-env.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, SuccessSchema } from "../../schemas.ts";
import {
  CreateWalletWatchBody,
  DetectedTradeSchema,
  TradesQuery,
  UpdateWalletWatchBody,
  WalletWatchIdParam,
  WalletWatchSchema,
} from "./schema.ts";

// /api/v1/wallet-watches (copy trading; PRODUCT.md §7): the wallets a user follows. A JWT, or an
// API key with the signals scope (a watch is a signal source), for every method.

const common = { tags: ["copy trading"], auth: auth.scoped("signals") };
const idParams = { params: WalletWatchIdParam };

const create = operation({
  ...common,
  method: "post",
  path: "/",
  request: { body: { ...jsonContent(CreateWalletWatchBody), required: true } },
  responses: {
    201: { description: "Created; copies the wallet's trades from now on", ...jsonContent(WalletWatchSchema) },
    ...errorResponses(400, 401, 403, 409),
  },
});
const list = operation({
  ...common,
  method: "get",
  path: "/",
  responses: {
    200: { description: "The user's wallet watches", ...jsonContent(z.array(WalletWatchSchema)) },
    ...errorResponses(401, 403),
  },
});
const getOne = operation({
  ...common,
  method: "get",
  path: "/{id}",
  request: idParams,
  responses: {
    200: { description: "One wallet watch", ...jsonContent(WalletWatchSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const update = operation({
  ...common,
  method: "put",
  path: "/{id}",
  request: { ...idParams, body: { ...jsonContent(UpdateWalletWatchBody), required: true } },
  responses: {
    200: { description: "Updated", ...jsonContent(WalletWatchSchema) },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});
const remove = operation({
  ...common,
  method: "delete",
  path: "/{id}",
  request: idParams,
  responses: {
    200: { description: "Deleted", ...jsonContent(SuccessSchema) },
    ...errorResponses(400, 401, 403, 404),
  },
});
const trades = operation({
  ...common,
  method: "get",
  path: "/{id}/trades",
  request: { ...idParams, query: TradesQuery },
  responses: {
    200: {
      description: "Detected trades of the wallet, newest first, with what the agents did with each",
      ...jsonContent(z.array(DetectedTradeSchema)),
    },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function walletWatchRoutes(s: AppDeps) {
  const router = createRouter(s);
  const watches = s.copyTrading.watches;
  return router
    .openapi(create, (c) => {
      const created = watches.create(c.get("auth").userId, c.req.valid("json"));
      s.logger.info("wallet watch created", { watchId: created.id, address: created.address });
      return c.json(created, 201);
    })
    .openapi(list, (c) => c.json(watches.list(c.get("auth").userId), 200))
    .openapi(getOne, (c) => c.json(watches.get(c.get("auth").userId, c.req.valid("param").id), 200))
    .openapi(update, (c) =>
      c.json(watches.update(c.get("auth").userId, c.req.valid("param").id, c.req.valid("json")), 200),
    )
    .openapi(remove, (c) => {
      watches.delete(c.get("auth").userId, c.req.valid("param").id);
      return c.json({ success: true }, 200);
    })
    .openapi(trades, (c) =>
      c.json(watches.trades(c.get("auth").userId, c.req.valid("param").id, c.req.valid("query").limit), 200),
    );
}
