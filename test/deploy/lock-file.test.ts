import { expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import lock from "../../package-lock.json" with { type: "json" };

// `npm ci` refuses a lock file that lacks a package some locked package lists as an optional
// dependency, even one built for another system (Biome's and litesvm's per-platform builds):
// "Missing: @biomejs/cli-darwin-arm64@2.6.8 from lock file". This reads the lock as npm ci does,
// without the network: every dependency of every locked package resolves to a locked entry whose
// version satisfies the range.
//
// litesvm 0.8.0 names four platform builds that were never published (darwin-arm64, darwin-x64,
// linux-arm64-gnu, linux-arm64-musl), so no lock could list them. package.json's `overrides` alias
// each to litesvm's linux-x64-musl build of the same version: its os/cpu/libc fields keep npm from
// installing it on those platforms (where litesvm 0.8.0 has no native build either way), and on
// linux-x64-musl it is the real build again. litesvm 0.4.0, whose builds all exist, needs glibc
// 2.38 (Debian 12 has 2.36); 1.x takes @solana/kit types (docs/decisions.md "Operator experience III").
const UNPUBLISHED = [
  "litesvm-darwin-arm64",
  "litesvm-darwin-x64",
  "litesvm-linux-arm64-gnu",
  "litesvm-linux-arm64-musl",
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

/** A locked alias that package.json's `overrides` put in place of `name` for the package at `dependent`. */
function overridden(dependent: string, name: string, found: Entry & { name?: string }): boolean {
  if (!found.name || found.name === name) return false;
  const owner = dependent.slice(dependent.lastIndexOf("node_modules/") + "node_modules/".length);
  const rules = (pkg as unknown as { overrides: Record<string, Record<string, string>> }).overrides[owner];
  return rules?.[name] === `npm:${found.name}@${found.version}`;
}

test("every dependency and optional dependency of every locked package is in the lock", () => {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    const deps = { ...entry.dependencies, ...entry.optionalDependencies };
    for (const [name, range] of Object.entries(deps)) {
      const found = resolveFrom(path, name);
      if (!found?.version) missing.push(`${name}@${range} (for ${path || "the root"})`);
      else if (overridden(path, name, found)) continue;
      else if (!Bun.semver.satisfies(found.version, range)) {
        missing.push(`${name}@${range} (locked ${found.version}, for ${path || "the root"})`);
      }
    }
  }
  expect(missing).toEqual([]);
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

test("litesvm's unpublished builds are aliased to its linux-x64-musl build, which npm installs on no other platform", () => {
  const version = packages["node_modules/litesvm"]?.version as string;
  const overrides = (pkg as unknown as { overrides: { litesvm: Record<string, string> } }).overrides.litesvm;
  expect(Object.keys(overrides).toSorted()).toEqual(UNPUBLISHED);
  for (const name of UNPUBLISHED) {
    expect(overrides[name]).toBe(`npm:litesvm-linux-x64-musl@${version}`);
    const entry = packages[`node_modules/${name}`] as Entry & { os?: string[]; cpu?: string[]; libc?: string[] };
    expect({
      os: entry.os,
      cpu: entry.cpu,
      libc: entry.libc,
      optional: (entry as { optional?: boolean }).optional,
    }).toEqual({
      os: ["linux"],
      cpu: ["x64"],
      libc: ["musl"],
      optional: true,
    });
  }
});

// @flydotio/litestream 1.0.1 (Litestream v0.3.13, docs/decisions/replication.md) names builds for
// darwin-arm64, darwin-x64 and linux-arm64 that the registry does not have, so no lock could list
// them. They are aliased to litesvm's linux-x64-musl build (locked already, for litesvm's own
// aliases above), which npm installs only on linux-x64-musl, where Litestream's lookup of its
// linux-x64 build never reads them; an alias to Litestream's own linux-x64 build would put three
// more copies of its 29 MB binary into every linux-x64 install. Such machines put `litestream` on
// PATH or set LITESTREAM_BIN.
test("Litestream's unpublished builds are aliased to a build npm installs on none of their platforms", () => {
  const overrides = (pkg as unknown as { overrides: Record<string, Record<string, string>> }).overrides[
    "@flydotio/litestream"
  ]!;
  const litesvm = packages["node_modules/litesvm"]?.version as string;
  for (const name of ["darwin-arm64", "darwin-x64", "linux-arm64"].map((p) => `@flydotio/litestream-${p}`)) {
    expect(overrides[name]).toBe(`npm:litesvm-linux-x64-musl@${litesvm}`);
    const entry = resolveFrom("node_modules/@flydotio/litestream", name) as Entry & {
      os?: string[];
      cpu?: string[];
      libc?: string[];
      optional?: boolean;
    };
    expect({ os: entry.os, cpu: entry.cpu, libc: entry.libc, optional: entry.optional }).toEqual({
      os: ["linux"],
      cpu: ["x64"],
      libc: ["musl"],
      optional: true,
    });
  }
});
