import { expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import lock from "../../package-lock.json" with { type: "json" };

// `npm ci` refuses a lock file that lacks a package some locked package lists as an optional
// dependency, even one built for another system (Biome's and litesvm's per-platform builds):
// "Missing: @biomejs/cli-darwin-arm64@2.6.8 from lock file". This reads the lock as npm ci does,
// without the network: every dependency of every locked package resolves to a locked entry whose
// version satisfies the range. A version the registry does not serve cannot be locked at all:
// litesvm 0.8.0 names four platform builds that were never published. They are the one known gap
// (so .ci/run still falls back to npm install); litesvm 0.4.0, whose builds all exist, needs glibc
// 2.38 (Debian 12 has 2.36), and 1.x takes @solana/kit types instead of web3.js 1.x ones
// (docs/decisions.md "Operator experience III").
const UNPUBLISHED = [
  "litesvm-darwin-arm64@0.8.0 (for node_modules/litesvm)",
  "litesvm-darwin-x64@0.8.0 (for node_modules/litesvm)",
  "litesvm-linux-arm64-gnu@0.8.0 (for node_modules/litesvm)",
  "litesvm-linux-arm64-musl@0.8.0 (for node_modules/litesvm)",
];

type Entry = {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  dev?: boolean;
};
const packages = (lock as unknown as { packages: Record<string, Entry> }).packages;

/** npm's resolution: the nearest node_modules/<name> up from the dependent's folder. */
function resolveFrom(dependent: string, name: string): Entry | undefined {
  let dir = dependent;
  for (;;) {
    const hit = packages[dir === "" ? `node_modules/${name}` : join(dir, "node_modules", name)];
    if (hit) return hit;
    if (dir === "") return undefined;
    const up = dir.lastIndexOf("/node_modules/");
    dir = up === -1 ? "" : dir.slice(0, up);
  }
}

test("every dependency and optional dependency of every locked package is in the lock, but litesvm's unpublished builds", () => {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    const deps = { ...entry.dependencies, ...entry.optionalDependencies };
    for (const [name, range] of Object.entries(deps)) {
      const found = resolveFrom(path, name);
      if (!found?.version) missing.push(`${name}@${range} (for ${path || "the root"})`);
      else if (!Bun.semver.satisfies(found.version, range)) {
        missing.push(`${name}@${range} (locked ${found.version}, for ${path || "the root"})`);
      }
    }
  }
  expect(missing).toEqual(UNPUBLISHED);
});

test("the lock's root matches package.json", () => {
  const root = packages[""] as Entry & { devDependencies?: Record<string, string> };
  expect(root.dependencies).toEqual(pkg.dependencies);
  expect(root.devDependencies).toEqual(pkg.devDependencies);
});

test("Biome's builds for other systems are locked (npm ci on macOS, Windows, musl)", () => {
  for (const name of ["@biomejs/cli-darwin-arm64", "@biomejs/cli-win32-x64", "@biomejs/cli-linux-x64-musl"]) {
    expect(packages[`node_modules/${name}`]?.version, name).toBeString();
  }
});
