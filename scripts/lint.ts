import { existsSync } from "node:fs";
import { join } from "node:path";

// `npm test`'s lint step judges the project, not the working copy (issue 44 item 7): Biome is
// handed the files git tracks, so a helper script left untracked in the checkout does not fail
// the suite. Outside a git checkout (an unpacked tarball) every file Biome's own includes take is
// checked, as before. Runs in the current directory; Biome comes from this project's install.
const biome = join(import.meta.dir, "../node_modules/.bin/biome");
const cwd = process.cwd();

function trackedFiles(): string[] | null {
  if (!existsSync(join(cwd, ".git"))) return null;
  const ls = Bun.spawnSync(["git", "ls-files", "-z"], { cwd, stdout: "pipe", stderr: "ignore" });
  if (ls.exitCode !== 0) return null;
  return ls.stdout
    .toString()
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(cwd, f)));
}

const files = trackedFiles();
const args = files ? ["--files-ignore-unknown=true", "--no-errors-on-unmatched", ...files] : ["."];
const run = Bun.spawnSync([biome, "ci", ...args], { cwd, stdout: "inherit", stderr: "inherit" });
process.exit(run.exitCode ?? 1);
