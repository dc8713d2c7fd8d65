// The root export is the platform; each domain's SQL is a subpath export
// (@inntak/postgres/graph, /intake, /realtime, /jobs, /testing).
export * from './platform/index.js';
