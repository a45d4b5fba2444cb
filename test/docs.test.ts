import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { configSchema } from "../src/config.ts";

// README's configuration table and .env.example must name every variable the service reads.
const root = join(import.meta.dir, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const envExample = readFileSync(join(root, ".env.example"), "utf8");

test.each(Object.keys(configSchema.shape))("%s is documented in README.md and .env.example", (name) => {
  expect(readme).toContain(`\`${name}\``);
  expect(envExample).toMatch(new RegExp(`^#? ?${name}=`, "m"));
});

test("README carries the two newcomer commands", () => {
  expect(readme).toContain("npm install && ");
  expect(readme).toContain("npm start");
  expect(readme).toContain("npm test");
});
