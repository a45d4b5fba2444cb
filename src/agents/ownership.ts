// Ownership checks live in the data layer (src/db/repositories/agents.ts) so ledgers/ and
// wallets/ use them without importing agents/; re-exported here for the modules that import them
// from agents/.
export { type AgentRow, requireOwnedAgent } from "../db/repositories/agents.ts";
