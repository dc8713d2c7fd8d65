import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { AppError, RawJson } from '@inntak/core';
import { parseWebhookBody, renderDelivery, type BodyTask, type Delivery, type DeliveryRenderer } from '@inntak/intake';
import type { BodyTaskResult } from './webhook-intake-worker.js';

/**
 * Bodies up to this size are parsed and rendered inline: a few milliseconds, less than a trip
 * to a thread. Larger ones (up to BODY_LIMIT, 25 MB) would hold the event loop for hundreds of
 * milliseconds each — every other request waiting — so they go to a worker thread.
 */
export const INLINE_BODY_BYTES = 256 * 1024;

/** The intake's renderer in the API: large bodies on worker threads, and stored one at a time. */
export const THREADED_RENDERER: DeliveryRenderer = {
  render: prepareDelivery,
  run: (bytes, work) => (bytes > INLINE_BODY_BYTES ? oneLargeDeliveryAtATime(work) : work()),
};

/** Parses, cleans and renders a delivery's body: inline when small, on a worker thread when large. */
async function prepareDelivery(task: BodyTask): Promise<Delivery> {
  if (task.body.length <= INLINE_BODY_BYTES) {
    const body = parseWebhookBody(task.body, task.contentType);
    return renderDelivery(task.target, { token: task.token, body, headers: task.headers });
  }
  let result: BodyTaskResult;
  try {
    // A 25 MB body is moved to the thread, not copied (a copy alone holds the loop ~50 ms).
    const movable = task.body.byteOffset === 0 && task.body.byteLength === task.body.buffer.byteLength;
    result = (await workers().run(task, movable ? { transferList: [task.body.buffer as ArrayBuffer] } : {})) as BodyTaskResult;
  } catch (err) {
    if (err instanceof Error && err.message === 'Task queue is at limit') throw new AppError('busy');
    throw err;
  }
  if ('error' in result) throw new AppError(result.error.code, { detail: result.error.detail });
  const { payloadJson, ...delivery } = result.delivery;
  return { ...delivery, payload: new RawJson(payloadJson) };
}

/**
 * Large deliveries are stored one at a time: eight 25 MB jsonb inserts at once take every core
 * PostgreSQL has, and small deliveries' queries would wait behind them. Parsing is already
 * limited by the pool's threads; this bounds the rest (copying into the query, the insert).
 */
async function oneLargeDeliveryAtATime<T>(work: () => Promise<T>): Promise<T> {
  const previous = largeQueue;
  let release!: () => void;
  largeQueue = new Promise<void>((resolve) => (release = resolve));
  await previous;
  try {
    return await work();
  } finally {
    release();
  }
}
let largeQueue: Promise<void> = Promise.resolve();

let pool: Piscina | undefined;

/**
 * One pool per process, started on the first large body. Threads exit when idle for a while, so
 * a process that never sees one (or tests) holds none. All cores but one, so the event loop
 * keeps one; a bounded queue (each entry holds a body of up to BODY_LIMIT) answers 503 beyond it.
 */
function workers(): Piscina {
  if (!pool) {
    const threads = Math.max(1, availableParallelism() - 1);
    pool = new Piscina({ filename: workerFile(), minThreads: 0, maxThreads: threads, maxQueue: threads * 8, idleTimeout: 2000 });
  }
  return pool;
}

/** The compiled worker: tests run this file from src/ (TypeScript), a thread needs dist/ (JavaScript). */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? fileURLToPath(new URL('../dist/webhook-intake-worker.js', import.meta.url))
    : fileURLToPath(new URL('./webhook-intake-worker.js', import.meta.url));
}
