import { describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { credit, debit } from "../../src/ledgers/balance-ledger.ts";
import { SOL_MINT } from "../../src/money.ts";
import { LiveWalletRegistry } from "../../src/wallets/live-wallet-registry.ts";
import { generateSimulationAddress } from "../../src/wallets/simulation-address.ts";
import { LIVE_WALLET_NOT_LOADED_MESSAGE, type LiveDepositChecker } from "../../src/wallets/wallet-service.ts";
import { createAgent, insertPosition, simulationWalletOf } from "../agents/fixtures.ts";
import { createTestContext, createUser, json, login } from "../helpers/context.ts";
import { contextPerFile, expectError } from "../helpers/file-context.ts";

// SPEC "Wallet endpoints", "Agent wallet", "Available wallet"; PRODUCT.md §3 and §5.

const live = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
const liveAddr = live.map((k) => k.publicKey.toBase58());
const checked: Array<{ agentId: string; walletAddress: string }> = [];
const depositChecker: LiveDepositChecker = {
  async checkDeposits(input) {
    checked.push(input);
    return { depositsFound: 2, newBalance: "3.5" };
  },
};

const { ctx, token, other } = await contextPerFile({
  // The 5/min limit has its own test below; the rest of the file must not trip it.
  env: { WALLETS_RATE_LIMIT_PER_MINUTE: "100000" },
  services: {
    liveWallets: LiveWalletRegistry.fromEnv({
      WALLET_1: bs58.encode(live[0]!.secretKey),
      WALLET_2: JSON.stringify(Array.from(live[1]!.secretKey)),
      WALLET_3: bs58.encode(live[2]!.secretKey),
    }),
    depositChecker,
  },
});

const now = () => new Date(ctx.clock.now()).toISOString();
const assign = (body: unknown, t = token) => ctx.request("POST", "/api/v1/wallets/assign", { token: t, body });
const walletsOf = async (agentId: string, t = token) => {
  const res = await ctx.request("GET", `/api/v1/wallets/agent/${agentId}`, { token: t });
  expect(res.status).toBe(200);
  return json(res);
};
const balances = (agentId: string) =>
  ctx.database.sqlite
    .query<{ wallet_address: string; token_address: string; balance: string }, [string]>(
      "SELECT wallet_address, token_address, balance FROM agent_balances WHERE agent_id = ? ORDER BY token_address",
    )
    .all(agentId);

describe("GET /wallets/agent/:agentId", () => {
  test("a new agent: its simulation wallet, and every live wallet of the environment as available", async () => {
    ctx.clock.advance(1000);
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    const body = await walletsOf(agent.id);
    expect(body.agentWallets).toEqual([
      { walletAddress: sim, walletType: "simulation", isAvailable: true, createdAt: now(), updatedAt: now() },
    ]);
    // Wallets held by agents of earlier tests are not offered; these three are free at this point.
    expect(body.availableWallets).toEqual(liveAddr.map((a) => ({ walletAddress: a, isAssigned: false })));
  });

  test("404 for another user's agent, 400 for a malformed id", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("GET", `/api/v1/wallets/agent/${theirs.id}`, { token }),
      404,
      "Agent not found",
    );
    await expectError(await ctx.request("GET", "/api/v1/wallets/agent/abc", { token }), 400, "Invalid agent ID format");
  });
});

describe("POST /wallets/assign", () => {
  test("assigns a live wallet loaded from the environment", async () => {
    const agent = await createAgent(ctx, token, { tradingMode: "live" });
    ctx.clock.advance(1000);
    const res = await assign({ agentId: agent.id, walletAddress: liveAddr[0], walletType: "live" });
    expect(res.status).toBe(201);
    expect(await json(res)).toEqual({
      success: true,
      walletAddress: liveAddr[0],
      walletType: "live",
      message: "Wallet assigned successfully",
    });
    const body = await walletsOf(agent.id);
    expect(body.agentWallets).toContainEqual({
      walletAddress: liveAddr[0],
      walletType: "live",
      isAvailable: true,
      createdAt: now(),
      updatedAt: now(),
    });
    expect(body.availableWallets).toEqual(liveAddr.map((a, i) => ({ walletAddress: a, isAssigned: i === 0 })));

    // Assigning it again is a no-op.
    const again = await assign({ agentId: agent.id, walletAddress: liveAddr[0], walletType: "live" });
    expect(again.status).toBe(201);
    expect((await json(again)).message).toBe("Wallet already assigned to this agent");

    // Another agent (of any user) cannot take it (PRODUCT.md §3: one agent at a time) ...
    const second = await createAgent(ctx, token);
    await expectError(
      await assign({ agentId: second.id, walletAddress: liveAddr[0], walletType: "live" }),
      409,
      "Wallet is already assigned to another agent",
    );
    const foreign = await createAgent(ctx, other.token);
    const conflict = await expectError(
      await assign({ agentId: foreign.id, walletAddress: liveAddr[0], walletType: "live" }, other.token),
      409,
      "Wallet is already assigned to another agent",
    );
    expect(conflict.code).toBe("CONFLICT");
    // ... and no longer sees it as available.
    expect(
      (await walletsOf(second.id)).availableWallets.map((w: { walletAddress: string }) => w.walletAddress),
    ).toEqual([liveAddr[1], liveAddr[2]]);

    // Replacing the agent's live wallet frees the first one.
    expect((await assign({ agentId: agent.id, walletAddress: liveAddr[1], walletType: "live" })).status).toBe(201);
    const after = await walletsOf(agent.id);
    expect(
      after.agentWallets
        .filter((w: { walletType: string }) => w.walletType === "live")
        .map((w: { walletAddress: string }) => w.walletAddress),
    ).toEqual([liveAddr[1]]);
    expect((await assign({ agentId: second.id, walletAddress: liveAddr[0], walletType: "live" })).status).toBe(201);
  });

  test("a live wallet not loaded from WALLET_N is refused with a message naming the variables", async () => {
    const agent = await createAgent(ctx, token);
    const stranger = Keypair.generate().publicKey.toBase58();
    const body = await expectError(
      await assign({ agentId: agent.id, walletAddress: stranger, walletType: "live" }),
      400,
      LIVE_WALLET_NOT_LOADED_MESSAGE,
    );
    expect(body.error).toContain("WALLET_1");
    expect(body.error).toContain("environment variables");
    await expectError(
      await assign({ agentId: agent.id, walletAddress: "sim_abc", walletType: "live" }),
      400,
      LIVE_WALLET_NOT_LOADED_MESSAGE,
    );
  });

  test("re-assigning a wallet type with open positions is refused (409)", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    const positionId = insertPosition(ctx, { agentId: agent.id, walletAddress: sim });
    const next = generateSimulationAddress();
    const body = await expectError(
      await assign({ agentId: agent.id, walletAddress: next, walletType: "simulation" }),
      409,
      "Cannot reassign the simulation wallet while it has open positions",
    );
    expect(body.details).toEqual({ openPositions: 1 });
    expect(simulationWalletOf(ctx, agent.id)).toBe(sim);
    // Closed positions do not block.
    ctx.database.sqlite.query("UPDATE positions SET status = 'closed' WHERE id = ?").run(positionId);
    expect((await assign({ agentId: agent.id, walletAddress: next, walletType: "simulation" })).status).toBe(201);
    expect(simulationWalletOf(ctx, agent.id)).toBe(next);
  });

  test("a new simulation wallet replaces the old one and starts with the initial SOL", async () => {
    const agent = await createAgent(ctx, token);
    const old = simulationWalletOf(ctx, agent.id);
    credit(ctx.database, { agentId: agent.id, walletAddress: old, tokenAddress: "MintOld" }, "5", {
      now: now(),
      tokenSymbol: "OLD",
    });
    const res = await assign({
      agentId: agent.id,
      walletAddress: "sim_Rep1acement22222222222222222",
      walletType: "simulation",
    });
    expect(res.status).toBe(201);
    expect(simulationWalletOf(ctx, agent.id)).toBe("sim_Rep1acement22222222222222222");
    expect(balances(agent.id)).toEqual([
      { wallet_address: "sim_Rep1acement22222222222222222", token_address: SOL_MINT, balance: "10" },
    ]);
    // A simulation address held by another agent is a conflict like a live one.
    const second = await createAgent(ctx, token);
    await expectError(
      await assign({ agentId: second.id, walletAddress: "sim_Rep1acement22222222222222222", walletType: "simulation" }),
      409,
      "Wallet is already assigned to another agent",
    );
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    [
      "missing agentId",
      { agentId: undefined, walletAddress: "sim_x", walletType: "simulation" },
      "Agent ID is required",
    ],
    [
      "malformed agentId",
      { agentId: "x", walletAddress: "sim_x", walletType: "simulation" },
      "Invalid agent ID format",
    ],
    ["missing walletAddress", { walletType: "simulation" }, "Wallet address is required"],
    ["empty walletAddress", { walletAddress: "", walletType: "simulation" }, "Wallet address is required"],
    ["missing walletType", { walletAddress: "sim_x" }, "Wallet type must be either 'simulation' or 'live'"],
    [
      "bad walletType",
      { walletAddress: "sim_x", walletType: "paper" },
      "Wallet type must be either 'simulation' or 'live'",
    ],
    [
      "simulation address without sim_",
      { walletAddress: liveAddr[2], walletType: "simulation" },
      "Simulation wallet addresses must be sim_ followed by base58 characters",
    ],
    [
      "simulation address with non-base58 characters",
      { walletAddress: "sim_0OIl", walletType: "simulation" },
      "Simulation wallet addresses must be sim_ followed by base58 characters",
    ],
  ];
  for (const [label, body, error] of invalid) {
    test(`400 for ${label}`, async () => {
      const agent = await createAgent(ctx, token);
      const full = "agentId" in body ? body : { agentId: agent.id, ...body };
      await expectError(await assign(full), 400, error);
    });
  }

  test("404 for another user's agent; nothing is assigned", async () => {
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await assign({ agentId: theirs.id, walletAddress: liveAddr[2], walletType: "live" }),
      404,
      "Agent not found",
    );
    expect((await walletsOf(theirs.id, other.token)).agentWallets).toHaveLength(1);
  });
});

describe("POST /wallets/:walletAddress/reset", () => {
  test("restores exactly the initial state; history and transactions are kept", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    const sol = { agentId: agent.id, walletAddress: sim, tokenAddress: SOL_MINT };
    debit(ctx.database, sol, "3.75", { now: now() });
    credit(ctx.database, { ...sol, tokenAddress: "MintBONK" }, "1234.5", { now: now(), tokenSymbol: "BONK" });
    const openId = insertPosition(ctx, { agentId: agent.id, walletAddress: sim, tokenAddress: "MintBONK" });
    const closedId = insertPosition(ctx, {
      agentId: agent.id,
      walletAddress: sim,
      tokenAddress: "MintWIF",
      status: "closed",
    });
    const tx = await ctx.request("POST", "/api/v1/agent-transactions", {
      token,
      body: {
        agentId: agent.id,
        walletAddress: sim,
        transactionType: "BUY",
        transactionValueUsd: "560",
        inputMint: SOL_MINT,
        inputAmount: "3.75",
        outputMint: "MintBONK",
        outputAmount: "1234.5",
      },
    });
    expect(tx.status).toBe(201);
    const swap = await ctx.request("POST", "/api/v1/agent-historical-swaps", {
      token,
      body: {
        agentId: agent.id,
        walletAddress: sim,
        tokenAddress: "MintWIF",
        tokenSymbol: "WIF",
        amount: "10",
        purchasePrice: "1",
        salePrice: "2",
        profitLossUsd: "1500",
        purchaseTime: "2025-12-01T00:00:00.000Z",
        saleTime: "2025-12-02T00:00:00.000Z",
        closeReason: "manual",
      },
    });
    expect(swap.status).toBe(201);
    ctx.clock.advance(60_000);

    const res = await ctx.request("POST", `/api/v1/wallets/${sim}/reset`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, message: "Simulation wallet reset to its initial state" });
    expect(balances(agent.id)).toEqual([{ wallet_address: sim, token_address: SOL_MINT, balance: "10" }]);
    const positions = ctx.database.sqlite
      .query<{ id: string }, [string]>("SELECT id FROM positions WHERE agent_id = ?")
      .all(agent.id);
    expect(positions.map((p) => p.id)).toEqual([closedId]);
    expect(positions.map((p) => p.id)).not.toContain(openId);
    expect(
      await json(await ctx.request("GET", `/api/v1/agent-transactions?agentId=${agent.id}`, { token })),
    ).toHaveLength(1);
    expect(
      await json(await ctx.request("GET", `/api/v1/agent-historical-swaps?agentId=${agent.id}`, { token })),
    ).toHaveLength(1);
    const history = await json(await ctx.request("GET", `/api/v1/agents/${agent.id}/balance-history`, { token }));
    expect(history.map((h: { reason: string }) => h.reason)).toEqual(["initial", "reset"]);
    expect(history[1]).toEqual({
      timestamp: now(),
      walletAddress: sim,
      solBalance: "10",
      totalValueSol: "10",
      totalValueUsd: null,
      reason: "reset",
    });
  });

  test("the body form POST /wallets/reset does the same", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    debit(ctx.database, { agentId: agent.id, walletAddress: sim, tokenAddress: SOL_MINT }, "9.999999999", {
      now: now(),
    });
    const res = await ctx.request("POST", "/api/v1/wallets/reset", { token, body: { walletAddress: sim } });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, message: "Simulation wallet reset to its initial state" });
    expect(balances(agent.id)).toEqual([{ wallet_address: sim, token_address: SOL_MINT, balance: "10" }]);
    await expectError(
      await ctx.request("POST", "/api/v1/wallets/reset", { token, body: {} }),
      400,
      "Wallet address is required",
    );
  });

  test("live wallets cannot be reset; unknown and foreign wallets are 404", async () => {
    const agent = await createAgent(ctx, token);
    expect((await assign({ agentId: agent.id, walletAddress: liveAddr[2], walletType: "live" })).status).toBe(201);
    const body = await expectError(
      await ctx.request("POST", `/api/v1/wallets/${liveAddr[2]}/reset`, { token }),
      400,
      "Live wallets cannot be reset",
    );
    expect(body.code).toBe("VALIDATION_ERROR");
    await expectError(
      await ctx.request("POST", "/api/v1/wallets/sim_Unknown1111/reset", { token }),
      404,
      "Wallet not found",
    );
    const theirs = await createAgent(ctx, other.token);
    const theirSim = simulationWalletOf(ctx, theirs.id);
    debit(ctx.database, { agentId: theirs.id, walletAddress: theirSim, tokenAddress: SOL_MINT }, "1", { now: now() });
    await expectError(
      await ctx.request("POST", `/api/v1/wallets/${theirSim}/reset`, { token }),
      404,
      "Wallet not found",
    );
    expect(balances(theirs.id)[0]?.balance).toBe("9");
  });
});

describe("POST /wallets/:walletAddress/check-deposits", () => {
  test("simulation: no deposits, the current SOL balance", async () => {
    const agent = await createAgent(ctx, token);
    const sim = simulationWalletOf(ctx, agent.id);
    debit(ctx.database, { agentId: agent.id, walletAddress: sim, tokenAddress: SOL_MINT }, "0.5", { now: now() });
    const res = await ctx.request("POST", `/api/v1/wallets/${sim}/check-deposits`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true, depositsFound: 0, newBalance: "9.5" });
  });

  test("live: handed to the live deposit checker", async () => {
    const key = Keypair.generate();
    // A wallet of its own registry, so this test does not depend on the others' assignments.
    const c2 = await createTestContext({
      services: { liveWallets: LiveWalletRegistry.fromEnv({ WALLET_1: bs58.encode(key.secretKey) }), depositChecker },
    });
    try {
      const t = (await login(c2)).token;
      const a = await createAgent(c2, t);
      const address = key.publicKey.toBase58();
      expect(
        (
          await c2.request("POST", "/api/v1/wallets/assign", {
            token: t,
            body: { agentId: a.id, walletAddress: address, walletType: "live" },
          })
        ).status,
      ).toBe(201);
      const res = await c2.request("POST", `/api/v1/wallets/${address}/check-deposits`, { token: t });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ success: true, depositsFound: 2, newBalance: "3.5" });
      expect(checked.at(-1)).toEqual({ agentId: a.id, walletAddress: address });
    } finally {
      await c2.close();
    }
  });

  test("live without a deposit checker: 503 SERVICE_NOT_CONFIGURED", async () => {
    const key = Keypair.generate();
    const c2 = await createTestContext({
      services: { liveWallets: LiveWalletRegistry.fromEnv({ WALLET_1: bs58.encode(key.secretKey) }) },
    });
    try {
      const t = (await login(c2)).token;
      const a = await createAgent(c2, t);
      const address = key.publicKey.toBase58();
      await c2.request("POST", "/api/v1/wallets/assign", {
        token: t,
        body: { agentId: a.id, walletAddress: address, walletType: "live" },
      });
      const res = await c2.request("POST", `/api/v1/wallets/${address}/check-deposits`, { token: t });
      expect(res.status).toBe(503);
      expect(await json(res)).toEqual({
        success: false,
        error: "Deposit checks for live wallets need the Solana RPC: set SOLANA_RPC_URL",
        code: "SERVICE_NOT_CONFIGURED",
      });
    } finally {
      await c2.close();
    }
  });

  test("404 for an unknown or foreign wallet", async () => {
    await expectError(
      await ctx.request("POST", "/api/v1/wallets/sim_Nope/check-deposits", { token }),
      404,
      "Wallet not found",
    );
    const theirs = await createAgent(ctx, other.token);
    await expectError(
      await ctx.request("POST", `/api/v1/wallets/${simulationWalletOf(ctx, theirs.id)}/check-deposits`, { token }),
      404,
      "Wallet not found",
    );
  });
});

describe("GET /wallets", () => {
  test("the wallets of the caller's agents only, newest assignment first", async () => {
    const c2 = await createTestContext();
    try {
      const t = (await login(c2)).token;
      const u2 = await createUser(c2);
      const a = await createAgent(c2, t, { name: "A" });
      c2.clock.advance(1000);
      const b = await createAgent(c2, t, { name: "B" });
      await createAgent(c2, u2.token, { name: "theirs" });
      const res = await c2.request("GET", "/api/v1/wallets", { token: t });
      expect(res.status).toBe(200);
      const at = (ms: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") + ms).toISOString();
      expect(await json(res)).toEqual([
        {
          agentId: b.id,
          agentName: "B",
          walletAddress: simulationWalletOf(c2, b.id),
          walletType: "simulation",
          isAvailable: true,
          createdAt: at(1000),
          updatedAt: at(1000),
        },
        {
          agentId: a.id,
          agentName: "A",
          walletAddress: simulationWalletOf(c2, a.id),
          walletType: "simulation",
          isAvailable: true,
          createdAt: at(0),
          updatedAt: at(0),
        },
      ]);
      expect(await json(await c2.request("GET", "/api/v1/wallets?limit=1&offset=1", { token: t }))).toHaveLength(1);
      const bad = await c2.request("GET", "/api/v1/wallets?limit=0", { token: t });
      expect(bad.status).toBe(400);
      expect((await json(bad)).error).toBe("limit must be at least 1");
    } finally {
      await c2.close();
    }
  });

  test("a live wallet whose WALLET_N is gone after a restart shows isAvailable false", async () => {
    const key = Keypair.generate();
    const address = key.publicKey.toBase58();
    const c2 = await createTestContext({
      services: { liveWallets: LiveWalletRegistry.fromEnv({ WALLET_1: bs58.encode(key.secretKey) }) },
    });
    const t = (await login(c2)).token;
    const a = await createAgent(c2, t);
    await c2.request("POST", "/api/v1/wallets/assign", {
      token: t,
      body: { agentId: a.id, walletAddress: address, walletType: "live" },
    });
    const c3 = await createTestContext({ dir: c2.dir });
    await c2.close();
    try {
      const t3 = (await login(c3)).token;
      const body = await json(await c3.request("GET", `/api/v1/wallets/agent/${a.id}`, { token: t3 }));
      expect(body.agentWallets.find((w: { walletType: string }) => w.walletType === "live")).toMatchObject({
        walletAddress: address,
        isAvailable: false,
      });
      expect(body.availableWallets).toEqual([]);
    } finally {
      await c3.close();
    }
  });
});

test("/wallets/* allows 5 requests per minute per user (SPEC Limits)", async () => {
  const c2 = await createTestContext();
  try {
    const t = (await login(c2)).token;
    const u2 = await createUser(c2);
    for (let i = 0; i < 5; i++) expect((await c2.request("GET", "/api/v1/wallets", { token: t })).status).toBe(200);
    const res = await c2.request("POST", "/api/v1/wallets/reset", { token: t, body: { walletAddress: "sim_x" } });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(await json(res)).toEqual({
      success: false,
      error: "Too many requests. Please try again later.",
      code: "RATE_LIMITED",
      retryAfter: 60,
    });
    // Per user: another user still passes.
    expect((await c2.request("GET", "/api/v1/wallets", { token: u2.token })).status).toBe(200);
    c2.clock.advance(60_001);
    expect((await c2.request("GET", "/api/v1/wallets", { token: t })).status).toBe(200);
  } finally {
    await c2.close();
  }
});

test("assigning a wallet to another user's agent is a 404", async () => {
  const theirs = await createAgent(ctx, other.token);
  const res = await assign({ agentId: theirs.id, walletAddress: "sim_Foreign111", walletType: "simulation" });
  expect(res.status).toBe(404);
});
