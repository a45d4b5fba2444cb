import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// Where the Litestream binary is (docs/backups.md "Getting Litestream"): LITESTREAM_BIN when set,
// else `litestream` on PATH (a release archive or a distribution package), else the build that
// npm installed with the service (@flydotio/litestream's per-platform package, Litestream
// v0.3.13). The npm package's own `litestream` command is a node script that runs the same file;
// the file itself is started here so that stopping the child stops Litestream, not a wrapper.

export function findLitestream(env: Record<string, string | undefined>): string | null {
  const configured = env.LITESTREAM_BIN;
  if (configured) return existsSync(configured) ? configured : null;
  const onPath = Bun.which("litestream", { PATH: env.PATH ?? "" });
  // `npm test`/`npm start` put node_modules/.bin on PATH, whose `litestream` is that node wrapper:
  // the binary it would run is taken directly instead.
  if (onPath && !isNpmWrapper(onPath)) return onPath;
  return bundledLitestream();
}

function isNpmWrapper(path: string): boolean {
  try {
    return /[\\/]@flydotio[\\/]litestream[\\/]/.test(realpathSync(path));
  } catch {
    return false;
  }
}

function bundledLitestream(): string | null {
  try {
    const req = createRequire(import.meta.url);
    const pkg = req.resolve(`@flydotio/litestream-${process.platform}-${process.arch}/package.json`);
    const bin = join(dirname(pkg), "litestream");
    return existsSync(bin) ? bin : null;
  } catch {
    // not installed (the compiled binary, another platform)
    return null;
  }
}
