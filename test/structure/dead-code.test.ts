import { expect, test } from "bun:test";
import { resolve } from "node:path";

// Dead code is found by knip (knip.jsonc: the entry points are what npm start, build, bench,
// scripts, the dashboard bundle and the tests load). An export nobody imports is either removed or
// made local to its file; a deliberate exception goes in knip.jsonc with its reason. knip runs in
// seconds, so the suite keeps the project clean rather than a separate lint step.

const ROOT = resolve(import.meta.dir, "../..");

test("knip finds no unused files, exports, types or dependencies", async () => {
  const proc = Bun.spawn([resolve(ROOT, "node_modules/.bin/knip"), "--reporter", "compact", "--no-progress"], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect(`${out}${err}`.trim()).toBe("");
  expect(code).toBe(0);
}, 60_000);
