// Independent reads of one swap run at the same time (each is a network round trip), but the swap
// goes on only when every one of them has settled: all values, or the error of the first read in
// the order given. Waiting for all (not Promise.all's first rejection) leaves nothing running and
// no rejection unobserved once the caller moves on, and the error is the one the same reads made
// one after another would have thrown, so a refusal names the same cause either way.

type Reads = readonly (() => unknown)[] | [];
type Values<T extends Reads> = { -readonly [K in keyof T]: T[K] extends () => infer R ? Awaited<R> : never };

export async function together<T extends Reads>(reads: T): Promise<Values<T>> {
  const started = reads.map((read) => {
    try {
      return Promise.resolve(read());
    } catch (err) {
      return Promise.reject(err);
    }
  });
  const settled = await Promise.allSettled(started);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as Values<T>;
}
