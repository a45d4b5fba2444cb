// Ids of rows appended to large, growing tables (transactions, positions, balance rows and
// snapshots, historical swaps): UUIDs version 7 (RFC 9562), whose leading bits are the creation
// time, so a new row's key lands at the end of its primary-key index instead of on a random page
// of it. On the benchmark's table of 1,000,000 transactions a fan-out to 1,000 agents appended
// half the WAL pages it did with random (version 4) ids (docs/decisions.md "Performance (issue
// 16)"). The other 74 bits are random: ids stay unguessable, and they still answer only to
// their owner.
export function newRowId(): string {
  return Bun.randomUUIDv7();
}
