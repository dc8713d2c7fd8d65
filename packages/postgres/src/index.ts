// The root export is the platform; each domain's SQL is a subpath export
// (@inntak/postgres/graph, /intake, /realtime, /jobs, /testing). `@inntak/postgres/database` is the
// pool alone (kysely and pg, without the migrator and graphile-worker): what a CLI call needs.
export * from './platform/index.js';
