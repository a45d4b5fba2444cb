export * from "./agents.ts";
export * from "./copy-trading.ts";
export * from "./notifications.ts";
export * from "./portfolio-history.ts";
export * from "./strategy-lab.ts";
export * from "./trading.ts";
export * from "./trading-controls.ts";
export * from "./users.ts";
