import type { AppDeps } from "../../app-env.ts";
import { audit } from "../../audit.ts";
import { originOf } from "../../client-address.ts";
import { auth, createRouter, operation } from "../../operation.ts";
import { errorResponses, jsonContent, SuccessMessageSchema } from "../../schemas.ts";
import { TwoFactorCodeBody, TwoFactorEnableResponse, TwoFactorSetupResponse } from "./schema.ts";

// The second factor's routes under /api/v1/auth/2fa (PRODUCT.md §2). JWT only: an API key never
// changes how its owner logs in.

const setup = operation({
  method: "post",
  path: "/2fa/setup",
  tags: ["auth"],
  auth: auth.jwt,
  responses: {
    200: {
      description: "A new secret; nothing changes until enable confirms it",
      ...jsonContent(TwoFactorSetupResponse),
    },
    ...errorResponses(401, 409),
  },
});

const enable = operation({
  method: "post",
  path: "/2fa/enable",
  tags: ["auth"],
  auth: auth.jwt,
  request: { body: { ...jsonContent(TwoFactorCodeBody), required: true } },
  responses: {
    200: { description: "On; the recovery codes are shown this once", ...jsonContent(TwoFactorEnableResponse) },
    ...errorResponses(400, 401, 409),
  },
});

const disable = operation({
  method: "post",
  path: "/2fa/disable",
  tags: ["auth"],
  auth: auth.jwt,
  request: { body: { ...jsonContent(TwoFactorCodeBody), required: true } },
  responses: {
    200: { description: "Off: login needs the password only", ...jsonContent(SuccessMessageSchema) },
    ...errorResponses(400, 401, 409),
  },
});

export function twoFactorRoutes(s: AppDeps) {
  return createRouter(s)
    .openapi(setup, (c) => c.json(s.twoFactor.setup(c.get("auth").userId), 200))
    .openapi(enable, (c) => {
      const { recoveryCodes } = s.twoFactor.enable(c.get("auth").userId, c.req.valid("json").code);
      audit(c, s, "auth.2fa_enabled", null);
      return c.json({ success: true as const, recoveryCodes }, 200);
    })
    .openapi(disable, (c) => {
      s.twoFactor.disable(c.get("auth").userId, c.req.valid("json").code, originOf(c, s.trustedProxies));
      audit(c, s, "auth.2fa_disabled", null);
      return c.json({ success: true, message: "Two-factor authentication disabled" }, 200);
    });
}
