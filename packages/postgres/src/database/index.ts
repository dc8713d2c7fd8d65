// `@inntak/postgres/database`: the pool alone (kysely and pg), without the migrator,
// graphile-worker and the embedded server the root export also loads: what a CLI call needs.
// It reaches past platform/index.js on purpose: that index is what loads graphile-worker.
// eslint-disable-next-line inntak/postgres-folders
export { connectionProblem, openDatabase, type Db, type DatabaseHandle, type DatabaseOptions } from '../platform/database.js';
