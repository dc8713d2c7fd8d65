// PocketSphinx (BSD-2-Clause, Debian's `pocketsphinx` package) is used only through the
// SpeechRecognizer port, from this file, so the engine can be replaced without touching anything else.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav, type SpeechRecognizer, type TranscriptSegment } from '@inntak/media';

/** The engine's command (Debian: /usr/bin/pocketsphinx_continuous). */
export const POCKETSPHINX_COMMAND = 'pocketsphinx_continuous';

export interface PocketsphinxModel {
  /** The acoustic model: the directory holding `mdef`. */
  hmm: string;
  /** The language model (`*.lm.bin`, `*.lm` or `*.DMP`). */
  lm: string;
  /** The pronunciation dictionary (`*.dict`). */
  dict: string;
}

/**
 * The three parts of a PocketSphinx model under TRANSCRIPTION_MODEL_DIR: the acoustic model is the
 * directory itself or a child holding `mdef`; the language model and dictionary lie directly in
 * it (Debian's `pocketsphinx-en-us` is laid out so: /usr/share/pocketsphinx/model/en-us). Throws,
 * naming what is missing, so a wrong directory stops the worker at start-up.
 */
export function findPocketsphinxModel(dir: string): PocketsphinxModel {
  if (!existsSync(dir)) throw new Error(`TRANSCRIPTION_MODEL_DIR ${dir} does not exist`);
  const entries = readdirSync(dir, { withFileTypes: true });
  const hmm = existsSync(join(dir, 'mdef')) ? dir : entries.filter((e) => e.isDirectory()).map((e) => join(dir, e.name)).find((d) => existsSync(join(d, 'mdef')));
  const lm = entries.find((e) => e.isFile() && /\.(lm\.bin|lm|DMP)$/.test(e.name) && !e.name.includes('-phone'));
  const dict = entries.find((e) => e.isFile() && e.name.endsWith('.dict'));
  if (!hmm || !lm || !dict) {
    const missing = [!hmm && 'acoustic model (a directory with mdef)', !lm && 'language model (*.lm.bin)', !dict && 'dictionary (*.dict)'].filter(Boolean);
    throw new Error(`TRANSCRIPTION_MODEL_DIR ${dir} has no ${missing.join(', ')}`);
  }
  return { hmm, lm: join(dir, lm.name), dict: join(dir, dict.name) };
}

/** Words that are markers, not speech: sentence ends, silence, noise. */
const MARKER = /^(<s>|<\/s>|<sil>|\[[A-Z_]+\]|\+\+.*\+\+)$/;

/**
 * Segments from `-time yes` output: each utterance is `<s> start end conf`, its words
 * (`word(2)` for an alternative pronunciation), `</s> …`. One segment per utterance, from its
 * first word's start to its last word's end.
 */
export function parsePocketsphinxTimes(output: string): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [];
  let words: Array<{ word: string; start: number; end: number }> = [];
  const flush = () => {
    if (words.length > 0) segments.push({ start_s: words[0]!.start, end_s: words.at(-1)!.end, text: words.map((w) => w.word).join(' ') });
    words = [];
  };
  for (const line of output.split('\n')) {
    const match = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)$/.exec(line.trim());
    if (!match) continue;
    const word = match[1]!;
    if (word === '<s>' || word === '</s>') {
      flush();
      continue;
    }
    if (MARKER.test(word)) continue;
    words.push({ word: word.replace(/\(\d+\)$/, ''), start: Number(match[2]), end: Number(match[3]) });
  }
  flush();
  return segments;
}

/**
 * Offline recognition by PocketSphinx's command line: the samples go in as a 16 kHz mono WAV in
 * a private temporary directory, the model from TRANSCRIPTION_MODEL_DIR, nothing from the
 * network. The process is killed when the job's signal aborts.
 */
export class PocketsphinxSpeechRecognizer implements SpeechRecognizer {
  readonly sampleRate = 16_000;
  readonly name: string;
  private readonly model: PocketsphinxModel;

  constructor(modelDir: string, private readonly command = POCKETSPHINX_COMMAND) {
    this.model = findPocketsphinxModel(modelDir);
    this.name = `pocketsphinx:${modelDir}`;
  }

  async recognize(samples: Float32Array, options: { signal?: AbortSignal } = {}): Promise<TranscriptSegment[]> {
    options.signal?.throwIfAborted();
    const dir = await mkdtemp(join(tmpdir(), 'inntak-stt-'));
    try {
      const input = join(dir, 'in.wav');
      await writeFile(input, encodeWav(samples, this.sampleRate));
      const args = ['-infile', input, '-hmm', this.model.hmm, '-lm', this.model.lm, '-dict', this.model.dict, '-samprate', String(this.sampleRate), '-time', 'yes', '-logfn', '/dev/null'];
      return parsePocketsphinxTimes(await run(this.command, args, options.signal));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

function run(command: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(signal ? { signal } : {}) });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err = (err + chunk).slice(-2000)));
    child.on('error', (error) => reject(signal?.aborted ? signal.reason : new Error(`${command}: ${error.message}`)));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(signal?.aborted ? signal.reason : new Error(`${command} exited with ${code}: ${err.trim().split('\n').at(-1) ?? ''}`))));
  });
}
