import { z } from "@hono/zod-openapi";
import { pagination, uuidParam } from "../../schemas.ts";

// SPEC "Agent wallet", "Available wallet", "Wallet endpoints"; PRODUCT.md §3.

const walletType = z.enum(["simulation", "live"], { error: "Wallet type must be either 'simulation' or 'live'" });
const walletAddress = z
  .string({ error: "Wallet address is required" })
  .trim()
  .min(1, { error: "Wallet address is required" })
  .max(255, { error: "Wallet address must be at most 255 characters" });

export const AgentIdPathParam = uuidParam("agentId", "Invalid agent ID format");

export const WalletAddressParam = z.object({
  walletAddress: z
    .string()
    .min(1)
    .max(255, { error: "Wallet address must be at most 255 characters" })
    .openapi({ param: { name: "walletAddress", in: "path" }, example: "sim_4Nd1mYf5Kq8Vb2Xc7Rz9Lp3Ws6Ht1Ug" }),
});

const AgentWalletSchema = z
  .object({
    walletAddress: z.string(),
    walletType,
    isAvailable: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("AgentWallet");

const AvailableWalletSchema = z
  .object({ walletAddress: z.string(), isAssigned: z.boolean() })
  .openapi("AvailableWallet");

export const AgentWalletsResponse = z
  .object({ agentWallets: z.array(AgentWalletSchema), availableWallets: z.array(AvailableWalletSchema) })
  .openapi("AgentWalletsResponse");

export const UserWalletSchema = AgentWalletSchema.extend({ agentId: z.string(), agentName: z.string() }).openapi(
  "UserWallet",
);

export const WalletListQuery = z.object(pagination(50, 1000));

export const AssignWalletBody = z
  .object(
    {
      agentId: z.string({ error: "Agent ID is required" }).uuid({ error: "Invalid agent ID format" }),
      walletAddress,
      walletType: walletType,
    },
    { error: (iss) => (iss.code === "invalid_type" ? "Request body must be a JSON object" : undefined) },
  )
  .openapi("AssignWalletRequest", {
    example: {
      agentId: "0b5e2a4c-7a1d-4d8e-9a51-2f6a3c1d9e10",
      walletAddress: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
      walletType: "live",
    },
  });

export const AssignWalletResponse = z
  .object({ success: z.boolean(), walletAddress: z.string(), walletType, message: z.string() })
  .openapi("AssignWalletResponse");

export const ResetWalletBody = z
  .object(
    { walletAddress },
    { error: (iss) => (iss.code === "invalid_type" ? "Request body must be a JSON object" : undefined) },
  )
  .openapi("ResetWalletRequest", { example: { walletAddress: "sim_4Nd1mYf5Kq8Vb2Xc7Rz9Lp3Ws6Ht1Ug" } });

export const ResetWalletResponse = z
  .object({ success: z.boolean(), message: z.string() })
  .openapi("ResetWalletResponse");

export const CheckDepositsResponse = z
  .object({ success: z.boolean(), depositsFound: z.number().int(), newBalance: z.string() })
  .openapi("CheckDepositsResponse");
