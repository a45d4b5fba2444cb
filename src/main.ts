import { runCli } from "./cli.ts";

// The entry point of `npm start` and of the compiled binary: hands argv to the CLI (src/cli.ts;
// no arguments = serve) and exits with its code. Nothing is exported: a default export with
// `fetch` would make Bun start a second server on its own (STYLE.md trap).

process.exit(await runCli(process.argv.slice(2)));
