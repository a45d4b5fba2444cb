// The process behind test/fakes/s3.ts: s3rver (an S3 server on the local file system) behind a
// plain HTTP listener on 127.0.0.1 that counts requests. Run by node, not Bun: under Bun,
// s3rver's logger (winston's logform) is handed safe-stable-stringify 1.x instead of its own 2.x
// and every request answers 500.
//
// s3rver 3.7.1 lists nothing under a prefix with a delimiter when the keys sit two levels deeper
// (its directory walk prunes the directories beneath a common prefix before it has seen an object
// in them), which is how Litestream finds its generations ("no matching backups found"). The
// listing asks s3rver's store without the delimiter and folds the common prefixes itself, as S3
// does.
//
// argv: DIRECTORY PORT BUCKET. Prints {"port":N} once listening; GET /__requests answers the count.
const http = require("node:http");
const S3rver = require("s3rver");

const [directory, portText, bucket] = process.argv.slice(2);
const s3 = new S3rver({ directory, silent: true });
const store = s3.store;
const list = store.listObjects.bind(store);
store.listObjects = async (name, options) => {
  if (!options.delimiter) return list(name, options);
  const all = await list(name, { ...options, delimiter: "", maxKeys: Number.POSITIVE_INFINITY });
  const prefix = options.prefix || "";
  const prefixes = new Set();
  const objects = all.objects.filter((o) => {
    const i = o.key.slice(prefix.length).indexOf(options.delimiter);
    if (i === -1) return true;
    prefixes.add(o.key.slice(0, prefix.length + i + 1));
    return false;
  });
  return { objects, commonPrefixes: [...prefixes].sort(), isTruncated: false };
};

let requests = 0;
const handler = s3.callback();
const server = http.createServer((req, res) => {
  if (req.url === "/__requests") return res.end(String(requests));
  requests++;
  handler(req, res);
});
store.putBucket(bucket).then(() =>
  server.listen(Number(portText), "127.0.0.1", () => {
    process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  }),
);
