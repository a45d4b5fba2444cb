import { expect, test } from "bun:test";
import { HealthRegistry } from "../../src/health/registry.ts";

// The fold of component states into the service state (SPEC state table, Health rows).

const healthy = () => ({ status: "healthy" as const });
const unhealthy = () => ({ status: "unhealthy" as const });

test.each([
  ["all healthy", { database: healthy, cache: healthy, queue: healthy }, "healthy"],
  ["cache unhealthy", { database: healthy, cache: unhealthy, queue: healthy }, "degraded"],
  ["queue unhealthy", { database: healthy, cache: healthy, queue: unhealthy }, "degraded"],
  [
    "extra dependency unhealthy",
    { database: healthy, cache: healthy, queue: healthy, priceFeed: unhealthy },
    "degraded",
  ],
  ["database unhealthy", { database: unhealthy, cache: healthy, queue: healthy }, "unhealthy"],
  [
    "everything unhealthy",
    { database: unhealthy, cache: unhealthy, queue: unhealthy, priceFeed: unhealthy },
    "unhealthy",
  ],
] as const)("%s → %s", async (_label, checks, expected) => {
  const registry = new HealthRegistry();
  for (const [name, check] of Object.entries(checks)) registry.register(name, check, { critical: name === "database" });
  expect((await registry.report()).status).toBe(expected);
});

test("core components come first in a fixed order, then the others in registration order", async () => {
  const registry = new HealthRegistry();
  registry.register("priceFeed", healthy);
  registry.register("queue", healthy);
  registry.register("zeta", healthy);
  registry.register("database", healthy, { critical: true });
  registry.register("cache", healthy);
  expect(Object.keys((await registry.report()).services)).toEqual(["database", "cache", "queue", "priceFeed", "zeta"]);
});

test("a check's own latency is kept; otherwise it is measured", async () => {
  const registry = new HealthRegistry();
  registry.register("database", () => ({ status: "healthy", latency: 12.5 }));
  registry.register("cache", healthy);
  const { services } = await registry.report();
  expect(services.database).toEqual({ status: "healthy", latency: 12.5 });
  expect(typeof services.cache!.latency).toBe("number");
});

test("a non-healthy result without a message gets a generic one", async () => {
  const registry = new HealthRegistry();
  registry.register("priceFeed", unhealthy);
  expect((await registry.report()).services.priceFeed).toEqual({ status: "unhealthy", message: "unavailable" });
});

test("a hung check times out as unhealthy instead of hanging the report", async () => {
  const failures: string[] = [];
  const registry = new HealthRegistry((name) => failures.push(name), 5);
  registry.register("priceFeed", () => new Promise(() => {}));
  registry.register("cache", healthy);
  const report = await registry.report();
  expect(report.status).toBe("degraded");
  expect(report.services.priceFeed).toEqual({ status: "unhealthy", message: "check timed out after 5 ms" });
  expect(failures).toEqual(["priceFeed"]);
});

test("re-registering a name replaces the check; a stale unregister does not remove the new one", async () => {
  const registry = new HealthRegistry();
  const removeOld = registry.register("queue", unhealthy);
  registry.register("queue", healthy);
  removeOld();
  expect(registry.has("queue")).toBe(true);
  expect((await registry.report()).status).toBe("healthy");
});
