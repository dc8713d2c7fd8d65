import type { Transaction } from 'kysely';
import type { Database, Db } from '../platform/index.js';

export type Trx = Transaction<Database>;
export type { Db };
