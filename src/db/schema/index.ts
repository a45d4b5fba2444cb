export * from "./agents.ts";
export * from "./trading.ts";
export * from "./users.ts";
export * from "./notifications.ts";
