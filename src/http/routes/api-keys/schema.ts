import { z } from "@hono/zod-openapi";
import { SCOPES } from "../../../auth/scopes.ts";
import { uuidParam } from "../../schemas.ts";

const ScopeSchema = z.enum(SCOPES, {
  error: `Invalid scope; allowed values: ${SCOPES.join(", ")}`,
});

export const CreateApiKeyBody = z
  .object({
    name: z
      .string({ error: "Name is required" })
      .trim()
      .min(1, { error: "Name is required" })
      .max(255, { error: "Name must be at most 255 characters" }),
    scopes: z
      .array(ScopeSchema, { error: "Scopes must be an array of scope values" })
      .min(1, { error: "At least one scope is required" }),
  })
  .openapi("CreateApiKeyRequest", { example: { name: "signal-bot", scopes: ["signals"] } });

export const ApiKeyIdParam = uuidParam("id", "Invalid API key ID format");

const base = {
  id: z.string().uuid(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  createdAt: z.string(),
};

export const CreatedApiKey = z.object({ ...base, key: z.string() }).openapi("CreatedApiKey");
export const ApiKeyListItem = z.object({ ...base, lastUsedAt: z.string().nullable() }).openapi("ApiKeyListItem");
export const ApiKeyView = z.object(base).openapi("ApiKey");
