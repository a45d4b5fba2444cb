import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Scope } from "../../auth/scopes.ts";
import type { AppDeps, AppEnv } from "../app-env.ts";
import { type AuthDeclaration, auth, createRouter, operation } from "../operation.ts";
import { errorResponses, jsonContent, SuccessSchema } from "../schemas.ts";

// The five CRUD routes every per-agent ledger has (agent balances, transactions, historical
// swaps; SPEC "... endpoints"): GETs take a JWT or a key with the ledger's scope, writes a JWT or
// a full_access key (PRODUCT.md §2). Each ledger's module gives its schemas, texts and service.

type Schema = z.ZodType;

interface LedgerService {
  list(userId: string, query: never): unknown;
  get(userId: string, id: string): unknown;
  create(userId: string, body: never): unknown;
  update(userId: string, id: string, body: never): unknown;
  delete(userId: string, id: string): void;
}

export interface LedgerRoutesSpec {
  tag: string;
  scope: Scope;
  service: (s: AppDeps) => LedgerService;
  idParam: z.ZodObject<{ id: z.ZodString }>;
  listQuery: z.ZodObject;
  item: Schema;
  /** The list's items when they carry more than `item` (balances' priceSol). */
  listItem?: Schema;
  create: Schema;
  update: Schema;
  /** Response descriptions; created/updated default to "Created record"/"Updated record". */
  text: { list: string; getOne: string; created?: string; updated?: string; updateDescription?: string };
  /** Statuses create can answer besides 400/401/404 (balances: 409). */
  createErrors?: number[];
  /** Read routes registered after the list and before /{id}, so their path is never read as an id. */
  extraReads?: (router: OpenAPIHono<AppEnv>, s: AppDeps, read: { tags: string[]; auth: AuthDeclaration }) => void;
}

export function ledgerRoutes(spec: LedgerRoutesSpec) {
  const tags = [spec.tag];
  const read = { tags, auth: auth.scoped(spec.scope) };
  const write = { tags, auth: auth.user };
  const list = operation({
    ...read,
    method: "get",
    path: "/",
    request: { query: spec.listQuery },
    responses: {
      200: { description: spec.text.list, ...jsonContent(z.array(spec.listItem ?? spec.item)) },
      ...errorResponses(400, 401, 403, 404),
    },
  });
  const getOne = operation({
    ...read,
    method: "get",
    path: "/{id}",
    request: { params: spec.idParam },
    responses: {
      200: { description: spec.text.getOne, ...jsonContent(spec.item) },
      ...errorResponses(400, 401, 403, 404),
    },
  });
  const create = operation({
    ...write,
    method: "post",
    path: "/",
    request: { body: { ...jsonContent(spec.create), required: true } },
    responses: {
      201: { description: spec.text.created ?? "Created record", ...jsonContent(spec.item) },
      ...errorResponses(400, 401, 404, ...(spec.createErrors ?? [])),
    },
  });
  const update = operation({
    ...write,
    method: "put",
    path: "/{id}",
    ...(spec.text.updateDescription ? { description: spec.text.updateDescription } : {}),
    request: { params: spec.idParam, body: { ...jsonContent(spec.update), required: true } },
    responses: {
      200: { description: spec.text.updated ?? "Updated record", ...jsonContent(spec.item) },
      ...errorResponses(400, 401, 404),
    },
  });
  const remove = operation({
    ...write,
    method: "delete",
    path: "/{id}",
    request: { params: spec.idParam },
    responses: { 200: { description: "Deleted", ...jsonContent(SuccessSchema) }, ...errorResponses(400, 401, 404) },
  });

  return (s: AppDeps) => {
    const router = createRouter(s);
    const svc = spec.service(s);
    const user = (c: { get(k: "auth"): { userId: string } }) => c.get("auth").userId;
    // The handlers' bodies are checked by the schemas above; the casts only bridge the generic types.
    router.openapi(list, async (c) => c.json((await svc.list(user(c), c.req.valid("query") as never)) as never, 200));
    spec.extraReads?.(router, s, read);
    router
      .openapi(getOne, (c) => c.json(svc.get(user(c), c.req.valid("param").id) as never, 200))
      .openapi(create, (c) => c.json(svc.create(user(c), c.req.valid("json") as never) as never, 201))
      .openapi(update, (c) =>
        c.json(svc.update(user(c), c.req.valid("param").id, c.req.valid("json") as never) as never, 200),
      )
      .openapi(remove, (c) => {
        svc.delete(user(c), c.req.valid("param").id);
        return c.json({ success: true }, 200);
      });
    return router;
  };
}
