// eSpeak NG is GPL-3.0-or-later (README, "Licences"): it is used only through the
// SpeechSynthesizer port, from this file, so it can be replaced without touching anything else.
import ESpeakNg from 'espeak-ng';
import { type SpeechOptions, type SpeechSynthesizer } from '@inntak/media';

/**
 * Speech from eSpeak NG compiled to WebAssembly (the `espeak-ng` npm package; no system install,
 * voices included). Each call runs the engine's command line once in a fresh module instance:
 * the text goes in as a file (`-f`), never as an argument, so no text can be read as a flag.
 * Output: RIFF/WAVE, 22,050 Hz mono 16-bit.
 */
export class EspeakSpeechSynthesizer implements SpeechSynthesizer {
  async synthesize(text: string, options: SpeechOptions): Promise<Uint8Array> {
    options.signal?.throwIfAborted();
    const errors: string[] = [];
    let status = 0;
    const engine = await ESpeakNg({
      arguments: ['-v', options.voice, '-s', String(options.rate), '-w', 'out.wav', '-f', 'in.txt'],
      preRun: [(module) => module.FS.writeFile('in.txt', text)],
      print: () => {},
      printErr: (line) => errors.push(line),
      quit: (code) => (status = code),
    });
    options.signal?.throwIfAborted();
    if (status !== 0 || !engine.FS.analyzePath('out.wav').exists) {
      throw new Error(`eSpeak NG failed: ${errors.find((line) => line.startsWith('Error')) ?? errors[0] ?? `exit status ${status}`}`);
    }
    return engine.FS.readFile('out.wav');
  }
}
