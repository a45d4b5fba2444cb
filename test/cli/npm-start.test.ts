import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startChildService } from "../helpers/child-service.ts";
import { offlineEnv } from "../helpers/context.ts";

// `npm start` under a supervisor (issue 13 item 2): Docker, systemd and process managers signal
// the npm process only. npm forwards SIGTERM to its child, the script's shell; the script `exec`s
// bun so that child IS the service. The test signals npm alone and sees the whole tree gone.

/** Parent pid of every process, from /proc (Linux). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.set(Number(name), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

function descendants(root: number): number[] {
  const tree = parents();
  const found = [root];
  for (let i = 0; i < found.length; i++)
    for (const [pid, ppid] of tree) if (ppid === found[i] && !found.includes(pid)) found.push(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("SIGTERM to the npm start process stops the whole tree cleanly, and the exit is logged", async () => {
  const dir = mkdtempSync(join(tmpdir(), "npm-start-"));
  const svc = await startChildService(
    { ...offlineEnv, LOG_LEVEL: "info", DATABASE_PATH: join(dir, "trading.db") },
    { cmd: ["npm", "start", "--silent"], cwd: ROOT, readyTimeoutMs: 30_000 },
  );
  const tree = descendants(svc.pid);
  try {
    const commands = tree.map((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " "));
    // npm and the service, no shell left in between (exec).
    expect(
      commands.some((c) => c.includes("src/main.ts")),
      commands.join("\n"),
    ).toBe(true);
    expect(
      commands.some((c) => /^(\/bin\/)?sh /.test(c)),
      commands.join("\n"),
    ).toBe(false);

    process.kill(svc.pid, "SIGTERM"); // npm only
    // Bounded wait for the whole tree (the acceptance bound is 5 s).
    const deadline = performance.now() + 5_000;
    while (tree.some(alive) && performance.now() < deadline) await Bun.sleep(20);
    expect(tree.filter(alive), svc.output()).toEqual([]);
    expect(await svc.exited, svc.output()).toBe(0);
    const lines = svc
      .output()
      .split("\n")
      .filter((l) => l.startsWith("[out] {"))
      .map((l) => JSON.parse(l.slice(6)));
    expect(
      lines.some((l) => l.msg === "stopped" && l.reason === "SIGTERM"),
      svc.output(),
    ).toBe(true);
  } finally {
    // Whatever is left (a failed run leaves the service orphaned): kill exactly the pids we started.
    for (const pid of tree.filter(alive).reverse()) process.kill(pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
