import { expect, test } from "bun:test";
import { together } from "../../src/trading/together.ts";

// Independent reads of a swap run together (src/trading/together.ts): all values in order, or the
// first read's error in the order given, and only once every read has settled.

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test("all values, in the order the reads were given, whatever order they answered in", async () => {
  const a = deferred<number>();
  const b = deferred<string>();
  const all = together([() => a.promise, () => b.promise, () => null]);
  b.resolve("b");
  a.resolve(1);
  expect(await all).toEqual([1, "b", null]);
});

test("a failed read: the error of the first failing read in order, only after every read settled", async () => {
  const first = deferred<number>();
  const second = deferred<number>();
  const slow = deferred<number>();
  let settled = false;
  const all = together([() => first.promise, () => second.promise, () => slow.promise]).finally(() => {
    settled = true;
  });
  second.reject(new Error("second"));
  first.reject(new Error("first"));
  await new Promise((r) => setImmediate(r));
  expect(settled).toBe(false); // the slow sibling still runs: the caller waits for it
  slow.resolve(3);
  await expect(all).rejects.toThrow("first");
});

test("a read that throws before returning a promise is a failed read; its siblings still run and are awaited", async () => {
  const sibling = deferred<number>();
  let ran = false;
  const all = together([
    () => {
      throw new Error("at once");
    },
    () => {
      ran = true;
      return sibling.promise;
    },
  ]);
  expect(ran).toBe(true);
  sibling.reject(new Error("later")); // observed by together, never unhandled
  await expect(all).rejects.toThrow("at once");
});
