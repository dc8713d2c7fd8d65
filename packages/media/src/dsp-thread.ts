import { parentPort } from 'node:worker_threads';
import { mixSources, speechSamples, type MixRequest, type SpeechRequest } from './dsp-work.js';

// The DSP thread (dsp-client.ts starts one per job): one request in, one answer out. Its work
// runs here, off the worker's event loop, so heartbeats, other jobs and SIGTERM go on meanwhile,
// and the job's signal ends it with worker.terminate() even inside a decoder's loop.

parentPort!.once('message', (request: MixRequest | SpeechRequest) => {
  void (async () => {
    try {
      if (request.kind === 'mix') {
        const result = await mixSources(request);
        parentPort!.postMessage({ ok: true, result }, [result.wav.buffer as ArrayBuffer]);
      } else {
        const result = await speechSamples(request);
        parentPort!.postMessage({ ok: true, result }, [result.samples.buffer as ArrayBuffer]);
      }
    } catch (error) {
      const { name, message } = error instanceof Error ? error : new Error(String(error));
      parentPort!.postMessage({ ok: false, name, message });
    }
  })();
});
