import type { TaskList } from 'graphile-worker';
import type { Db } from '@inntak/postgres';
import { accessRepair } from './tasks/access-repair.js';

/** Every job type the worker runs, one task file each; task bodies stay thin. */
export function createTaskList(db: Db): TaskList {
  return {
    access_repair: accessRepair(db) as TaskList[string],
  };
}
