import type * as Prom from "prom-client";

// prom-client's parts this service uses, required from their own files. Its index also loads the
// Pushgateway and the cluster aggregator, which pull in node:http, node:https, node:zlib and
// node:cluster: megabytes of resident memory at start for code the service never runs
// (docs/decisions.md "Performance", "Start-up and memory"). The types are the
// package's own.

export const Registry = require("prom-client/lib/registry") as typeof Prom.Registry;
export type Registry = Prom.Registry;
export const Counter = require("prom-client/lib/counter") as typeof Prom.Counter;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Gauge = require("prom-client/lib/gauge") as typeof Prom.Gauge;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const collectDefaultMetrics = require("prom-client/lib/defaultMetrics") as typeof Prom.collectDefaultMetrics;
export const Histogram = require("prom-client/lib/histogram") as typeof Prom.Histogram;
export type Histogram<T extends string = string> = Prom.Histogram<T>;
