// Builds the single executable: `bun build --compile` of src/main.ts into dist/trading-agent.
// Migrations are already embedded (src/db/embedded-migrations.ts imports each SQL file as text).
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";

const root = import.meta.dir;
const args = process.argv.slice(2);
const targetIdx = args.indexOf("--target");
const target = targetIdx >= 0 ? args[targetIdx + 1] : undefined;
const outfile = join(root, "dist", target ? `trading-agent-${target.replace(/^bun-/, "")}` : "trading-agent");
mkdirSync(join(root, "dist"), { recursive: true });

const result = await Bun.build({
  entrypoints: [join(root, "src/main.ts")],
  compile: { outfile, ...(target ? { target: target as never } : {}) },
  minify: true,
  sourcemap: "linked",
  define: { "process.env.BUILD_VERSION": JSON.stringify(process.env.npm_package_version ?? "0.0.0") },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
const size = statSync(outfile).size;
console.log(`built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB)`);
