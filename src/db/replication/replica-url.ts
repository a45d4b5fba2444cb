// REPLICA_URL (docs/backups.md, docs/decisions/replication.md): where Litestream sends the
// database. Three kinds, each a Litestream replica type: s3:// (any S3-compatible store, with
// REPLICA_S3_ENDPOINT for one that is not AWS), sftp:// and file://. The YAML for Litestream is
// written here from the parsed URL; credentials never go into it: Litestream reads
// AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY from its environment, and an sftp password stays in the
// URL it is given (a file only the service's user can read).

type ReplicaKind = "s3" | "sftp" | "file";

export interface ReplicaTarget {
  kind: ReplicaKind;
  /** The URL as Litestream takes it. */
  url: string;
  /** The URL without user name or password: health, logs, the restore command's output. */
  display: string;
}

/** Parses REPLICA_URL; an error names what is wrong without echoing the value (it may hold a password). */
export function parseReplicaUrl(text: string): ReplicaTarget | { error: string } {
  if (!URL.canParse(text)) return { error: "must be an s3://, sftp:// or file:// URL" };
  const u = new URL(text);
  const kind = u.protocol.slice(0, -1);
  if (kind !== "s3" && kind !== "sftp" && kind !== "file") return { error: "must be an s3://, sftp:// or file:// URL" };
  if (kind === "s3" && (u.hostname === "" || u.pathname.replace(/\/+$/, "") === ""))
    return { error: "an s3:// URL names a bucket and a path in it: s3://BUCKET/PATH" };
  if (kind === "sftp" && (u.hostname === "" || u.pathname.replace(/\/+$/, "") === ""))
    return { error: "an sftp:// URL names a host and a path: sftp://USER@HOST/PATH" };
  if (kind === "file" && (u.hostname !== "" || u.pathname.replace(/\/+$/, "") === ""))
    return { error: "a file:// URL names an absolute directory: file:///mnt/backup/trading" };
  const shown = new URL(text);
  shown.username = "";
  shown.password = "";
  return { kind, url: text, display: shown.toString() };
}

export interface LitestreamSettings {
  databasePath: string;
  replica: ReplicaTarget;
  /** REPLICA_S3_ENDPOINT: the S3 API of a store that is not AWS (Backblaze, R2, MinIO). */
  s3Endpoint?: string;
  region?: string;
  syncIntervalSeconds: number;
  /** 127.0.0.1:PORT where Litestream serves its Prometheus metrics (the service reads them). */
  metricsAddress?: string;
}

/** JSON is YAML: every value is quoted, so a path or URL with a colon or a # stays one string. */
export function litestreamConfig(s: LitestreamSettings): string {
  const replica: Record<string, string | boolean> = {
    url: s.replica.url,
    "sync-interval": `${s.syncIntervalSeconds}s`,
  };
  if (s.replica.kind === "s3") {
    if (s.s3Endpoint) {
      replica.endpoint = s.s3Endpoint;
      // A custom endpoint's buckets are addressed by path: MinIO and most self-hosted stores
      // have no per-bucket host names, and Backblaze and R2 accept both.
      replica["force-path-style"] = true;
    }
    // Litestream v0.3 asks AWS for the bucket's region when none is given, which a store other
    // than AWS does not answer.
    replica.region = s.region || (s.s3Endpoint ? "us-east-1" : "");
    if (replica.region === "") delete replica.region;
  }
  const config = {
    ...(s.metricsAddress ? { addr: s.metricsAddress } : {}),
    dbs: [{ path: s.databasePath, replicas: [replica] }],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}
