import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RefusedAudioError, type MixRequest, type MixResult, type SpeechRequest } from './dsp-work.js';

/**
 * The JavaScript heap one DSP thread may use. Samples live in typed arrays outside that heap, so
 * memory is bounded first by the header checks (dsp-work.ts); this stops a thread whose own
 * objects run away instead of the worker process.
 */
export const DSP_THREAD_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 } as const;

/**
 * The thread runs compiled JavaScript: beside this file in dist/, or, when this file is the
 * TypeScript source (jest) or bundled elsewhere (a test worker), the package's own dist/, which
 * `tsc -b` (part of `npm test`) builds.
 */
function threadEntry(): URL {
  const candidates = [
    () => new URL('./dsp-thread.js', import.meta.url),
    () => new URL('../dist/dsp-thread.js', import.meta.url),
    () => pathToFileURL(join(dirname(createRequire(import.meta.url).resolve('@inntak/media')), 'dsp-thread.js')),
  ];
  for (const candidate of candidates) {
    const url = candidate();
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new DspThreadError('the DSP thread is not built: run `npx tsc -b`');
}

/** A DSP thread that stopped without an answer (out of memory under DSP_THREAD_LIMITS, a crash). */
export class DspThreadError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'DspThreadError';
  }
}

export function runInDspThread(request: MixRequest, signal: AbortSignal): Promise<MixResult>;
export function runInDspThread(request: SpeechRequest, signal: AbortSignal): Promise<{ samples: Float32Array; duration_s: number }>;
/**
 * Runs one request in a thread of its own, off the event loop (issue 35: a mix's DSP ran
 * synchronously and blocked heartbeats and SIGTERM for minutes). The signal terminates the
 * thread at once, wherever it is. RefusedAudioError crosses back as itself.
 */
export function runInDspThread(request: MixRequest | SpeechRequest, signal: AbortSignal): Promise<unknown> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const worker = new Worker(threadEntry(), { resourceLimits: DSP_THREAD_LIMITS });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    const onAbort = () => settle(() => reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (answer: { ok: true; result: unknown } | { ok: false; name: string; message: string }) =>
      settle(() => {
        if (answer.ok) resolve(answer.result);
        else reject(answer.name === 'RefusedAudioError' ? new RefusedAudioError(answer.message) : Object.assign(new Error(answer.message), { name: answer.name }));
      }),
    );
    worker.once('error', (error) => settle(() => reject(new DspThreadError(`the DSP thread failed: ${error.message}`))));
    worker.once('exit', (code) => settle(() => reject(new DspThreadError(`the DSP thread stopped (exit code ${code}) without an answer`))));
    worker.postMessage(request);
  });
}
