export * from "./users.ts";
export * from "./agents.ts";
export * from "./trading.ts";
