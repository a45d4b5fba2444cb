import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, run } from "../cli/process-helpers.ts";

// build.ts flags: a cross target whose runtime cannot be downloaded is skipped with a clear
// notice and the host build still succeeds; bad flags are usage errors. The download is made to
// fail locally (a proxy on a closed 127.0.0.1 port, an empty runtime cache): nothing leaves the machine.

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
const offline = (cache: string) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? "/tmp",
  BUN_INSTALL_CACHE_DIR: cache,
  HTTPS_PROXY: "http://127.0.0.1:9",
  HTTP_PROXY: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9",
  http_proxy: "http://127.0.0.1:9",
});

test("a cross target whose runtime cannot be downloaded is skipped; the host binary is built and checked", async () => {
  const out = tmp("trading-agent-build-targets-");
  const r = await run(
    [process.execPath, join(ROOT, "build.ts"), "--outdir", out, "--target", "bun-linux-x64-baseline"],
    {
      cwd: ROOT,
      env: offline(tmp("trading-agent-empty-cache-")),
    },
  );
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("  smoke: migrate → applied 0000_init");
  expect(r.stderr).toContain(
    "notice: skipped bun-linux-x64-baseline: cross-compiling needs Bun's bun-linux-x64-baseline runtime, which could not be downloaded (",
  );
  expect(r.stderr).toContain("skipped targets: bun-linux-x64-baseline (the host binary is built and checked)");
  expect(readdirSync(out)).toEqual(["trading-agent"]);
}, 120_000);

test.each([
  [["--target", "bun-linux-sparc"], "unknown target bun-linux-sparc: expected e.g. bun-linux-x64 or bun-linux-arm64\n"],
  [["--frobnicate"], "unknown argument --frobnicate\n"],
])("usage error %p exits 2 before building", async (args, message) => {
  const out = tmp("trading-agent-build-usage-");
  const r = await run([process.execPath, join(ROOT, "build.ts"), "--outdir", out, ...args], {
    cwd: ROOT,
    env: offline(out),
  });
  expect(r.code).toBe(2);
  expect(r.stderr).toStartWith(message);
  expect(readdirSync(out)).toEqual([]);
});
