// Ids of rows appended to large, growing tables (transactions, positions, balance rows and
// snapshots, historical swaps): UUIDs version 7 (RFC 9562), whose leading bits are the creation
// time, so a new row's key lands at the end of its primary-key index instead of on a random page
// of it, and a fan-out appends far fewer WAL pages than with random (version 4) ids
// (docs/decisions.md "Performance"). The other 74 bits are random: ids stay unguessable, and they still answer only to
// their owner.
export function newRowId(): string {
  return Bun.randomUUIDv7();
}
