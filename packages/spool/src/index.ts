export { SqliteSpool, type SqliteSpoolOptions } from './sqlite-spool.js';
export { NatsSpool, type NatsSpoolOptions } from './nats-spool.js';
