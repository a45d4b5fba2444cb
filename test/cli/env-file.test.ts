import { expect, test } from "bun:test";
import { parseEnvFile } from "../../src/cli/env-file.ts";
import { ConfigError } from "../../src/config.ts";

// The --env-file format (src/cli/env-file.ts): the .env format of .env.example, values literal.

test.each([
  ["plain", "A=1", { A: "1" }],
  ["spaces around", "  A = value with spaces  ", { A: "value with spaces" }],
  ["empty value", "A=", { A: "" }],
  ["inline comment after an unquoted value", "DB_SYNC=normal           # normal | full", { DB_SYNC: "normal" }],
  ["# without a space before it is part of the value", "A=abc#def", { A: "abc#def" }],
  ["comment and blank lines", "# heading\n\n   # indented\nA=1\n", { A: "1" }],
  ["export prefix", "export A=1", { A: "1" }],
  ["double quotes keep # and spaces", 'A="x # y "', { A: "x # y " }],
  ["double-quote escapes", 'A="line1\\nline2\\t\\"q\\" \\\\"', { A: 'line1\nline2\t"q" \\' }],
  ["single quotes are literal", "A='$HOME\\n'", { A: "$HOME\\n" }],
  ["no $ expansion", "ADMIN_PASSWORD=pa$$word$HOME", { ADMIN_PASSWORD: "pa$$word$HOME" }],
  ["= inside a value", "URL=https://x.test/?a=b", { URL: "https://x.test/?a=b" }],
  ["comment after a closing quote", 'A="v" # note', { A: "v" }],
  ["CRLF line ends and a BOM", "\uFEFFA=1\r\nB=2\r\n", { A: "1", B: "2" }],
  ["the last of a repeated name wins", "A=1\nA=2", { A: "2" }],
])("%s", (_name, text, expected) => {
  expect(parseEnvFile(text)).toEqual(expected);
});

test("problems: one per line, naming the line, never the value", () => {
  let caught: unknown;
  try {
    parseEnvFile('OK=1\njust-words secret-value\n=x\nA B=1\nQ=\'open\nR="x" trailing', "/etc/trading-agent/env");
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  expect((caught as ConfigError).problems).toEqual([
    "/etc/trading-agent/env line 2: expected NAME=value",
    "/etc/trading-agent/env line 3: expected NAME=value",
    "/etc/trading-agent/env line 4: invalid variable name",
    "/etc/trading-agent/env line 5: Q: unterminated quote",
    "/etc/trading-agent/env line 6: R: unterminated quote",
  ]);
  expect((caught as ConfigError).message).not.toContain("secret-value");
});
