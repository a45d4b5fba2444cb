import pkg from "../package.json" with { type: "json" };

// What `trading-agent version` prints. The version comes from package.json (bundled into the
// binary); build.ts stamps the git commit through `define`, so a source run says "source".

export const VERSION: string = pkg.version;
const COMMIT = process.env.TRADING_AGENT_BUILD_COMMIT || "source";

export function versionLine(): string {
  return `trading-agent ${VERSION} (${COMMIT}; bun ${Bun.version}; ${process.platform}-${process.arch})`;
}
