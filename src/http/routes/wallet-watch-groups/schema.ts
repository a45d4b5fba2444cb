import { z } from "@hono/zod-openapi";
import { uuidParam } from "../../schemas.ts";
import { isSolanaAddress } from "../../solana-address.ts";

export const GroupIdParam = uuidParam("id", "Invalid wallet watch group ID format");

const name = z
  .string({ error: "name is required" })
  .regex(/^[A-Za-z0-9_.-]{1,40}$/, { error: "name must be 1-40 letters, digits, '_', '.' or '-'" })
  .openapi({ example: "smart-money" });
const addresses = z
  .array(z.string().refine(isSolanaAddress, { error: "addresses must be base58 Solana public keys (32 bytes)" }), {
    error: "addresses must be a list of wallet addresses",
  })
  .min(2, { error: "addresses must name 2 to 50 wallets" })
  .max(50, { error: "addresses must name 2 to 50 wallets" })
  .openapi({
    description: "Followed wallets of the group (each needs an enabled wallet watch to be read)",
    example: ["DemoCopyAnt11111111111111111111111111111111", "DemoCopyBee11111111111111111111111111111111"],
  });
const windowSeconds = z
  .number({ error: "windowSeconds must be a whole number from 10 to 86400" })
  .int({ error: "windowSeconds must be a whole number from 10 to 86400" })
  .min(10, { error: "windowSeconds must be a whole number from 10 to 86400" })
  .max(86_400, { error: "windowSeconds must be a whole number from 10 to 86400" })
  .openapi({ description: "Window T: the buys counted lie within it", example: 600 });
const minWallets = z
  .number({ error: "minWallets must be a whole number from 2 to 50" })
  .int({ error: "minWallets must be a whole number from 2 to 50" })
  .min(2, { error: "minWallets must be a whole number from 2 to 50" })
  .max(50, { error: "minWallets must be a whole number from 2 to 50" })
  .openapi({ description: "Count N: different wallets of the group buying the same mint within T", example: 2 });
const signalStrength = z
  .number({ error: "Signal strength must be between 1 and 5" })
  .int({ error: "Signal strength must be between 1 and 5" })
  .min(1, { error: "Signal strength must be between 1 and 5" })
  .max(5, { error: "Signal strength must be between 1 and 5" });
const enabled = z.boolean({ error: "enabled must be true or false" });

export const CreateGroupBody = z
  .strictObject({
    name,
    addresses,
    windowSeconds: windowSeconds.default(600),
    minWallets: minWallets.default(2),
    signalStrength: signalStrength.default(4),
    enabled: enabled.default(true),
  })
  .openapi("CreateWalletWatchGroupRequest", {
    example: {
      name: "smart-money",
      addresses: ["DemoCopyAnt11111111111111111111111111111111", "DemoCopyBee11111111111111111111111111111111"],
      windowSeconds: 600,
      minWallets: 2,
    },
  });

export const UpdateGroupBody = z
  .strictObject({
    name: name.optional(),
    addresses: addresses.optional(),
    windowSeconds: windowSeconds.optional(),
    minWallets: minWallets.optional(),
    signalStrength: signalStrength.optional(),
    enabled: enabled.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    error: "At least one field must be provided: name, addresses, windowSeconds, minWallets, signalStrength or enabled",
  })
  .openapi("UpdateWalletWatchGroupRequest", { example: { minWallets: 3 } });

export const GroupSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    addresses: z.array(z.string()),
    windowSeconds: z.number().int(),
    minWallets: z.number().int(),
    signalStrength: z.number().int(),
    enabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("WalletWatchGroup");
