import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findLitestream } from "../../src/db/replication/litestream-binary.ts";

// What the replication tests share: the Litestream binary (npm installs it with the service; a
// machine where it could not be installed skips these tests with a notice), a restore through
// `litestream restore` that the test reads back, and the Litestream processes this test process
// started.

export const LITESTREAM = findLitestream({ PATH: process.env.PATH, LITESTREAM_BIN: process.env.LITESTREAM_BIN });
if (!LITESTREAM)
  console.warn(
    "NOTICE: the Litestream binary is not installed (npm's @flydotio/litestream has no build for this platform and none is on PATH): the replication tests are skipped",
  );

/** Restores the replica's latest copy into a new file and returns its path. */
export async function restoreCopy(
  replicaUrl: string,
  env: Record<string, string> = {},
  yaml?: string,
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "restored-"));
  const out = join(dir, "copy.db");
  const args = yaml
    ? ["restore", "-no-expand-env", "-config", yaml, "-o", out, "/restore-target"]
    : ["restore", "-o", out, replicaUrl];
  const p = Bun.spawnSync([LITESTREAM!, ...args], { env: { PATH: process.env.PATH ?? "", ...env } });
  if (p.exitCode !== 0) throw new Error(`litestream restore failed: ${p.stderr.toString()}`);
  return out;
}

/** Rows of `sql` in a restored copy. */
export function countIn(path: string, sql: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ n: number }, []>(sql).get()!.n;
  } finally {
    db.close();
  }
}

/** Litestream processes whose parent is this test process. */
export function childLitestreams(): number[] {
  return litestreamsOf(process.pid);
}

/** Litestream processes whose parent is `parent`. */
export function litestreamsOf(parent: number): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const comm = /\((.*)\)/.exec(stat)?.[1];
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm === "litestream" && ppid === parent) out.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Waits until a restore of the replica answers `sql` with `n` (the replica itself, not the service's word). */
export async function untilReplicated(
  replicaUrl: string,
  sql: string,
  n: number,
  opts: { env?: Record<string, string>; yaml?: string; ms?: number } = {},
): Promise<void> {
  const deadline = performance.now() + (opts.ms ?? 15_000);
  let last = "";
  for (;;) {
    try {
      const copy = await restoreCopy(replicaUrl, opts.env, opts.yaml);
      const found = countIn(copy, sql);
      rmSync(dirname(copy), { recursive: true, force: true });
      if (found === n) return;
      last = `${found} rows`;
    } catch (err) {
      last = String(err);
    }
    if (performance.now() > deadline) throw new Error(`the replica never answered ${sql} with ${n} (last: ${last})`);
    await Bun.sleep(250);
  }
}
