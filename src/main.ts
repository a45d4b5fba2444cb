import { createApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { AppError } from "./errors.ts";
import { createServices } from "./services.ts";

// Entry point: config → database + migrations → services → app → Bun.serve. Nothing is exported
// by default: a default export with `fetch` would make Bun start a second server (STYLE.md trap).

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const line of err.problems) console.error(`config error: ${line}`);
      process.exit(2);
    }
    throw err;
  }

  const database = openDatabase(config.DATABASE_PATH, { sync: config.DB_SYNC });
  const services = createServices(config, database);
  const log = services.logger;
  try {
    const admin = await services.accounts.ensureAdmin(config.ADMIN_EMAIL, config.ADMIN_PASSWORD);
    log.info("admin account", { result: admin });
  } catch (err) {
    if (err instanceof AppError) {
      console.error(`config error: ${err.message}`);
      database.close();
      process.exit(2);
    }
    throw err;
  }

  const app = createApp(services);
  const server = Bun.serve({
    hostname: config.HOST,
    port: config.PORT,
    fetch: (req, srv) => app.fetch(req, { server: srv }),
  });
  log.info("listening", { host: config.HOST, port: server.port, database: database.path });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    await server.stop(false);
    await services.stop();
    database.close();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

await main();
