/**
 * Seconds of speech eSpeak NG synthesizes per second of this process's CPU time, on Norwegian
 * news text split into pieces the way tts_generate splits it. CPU time rather than wall time, so
 * that a shared machine's other load does not count (the wall figure is printed beside it).
 * Then the round trip: sentences read aloud and transcribed again by the speech_transcription
 * engine, with the word error rate (docs/media.md, "Transcription").
 *   npm run bench:tts [-- pieces]     (TRANSCRIPTION_MODEL_DIR: the model; default Debian's en-us)
 */
import { existsSync } from 'node:fs';
import { EspeakSpeechSynthesizer } from '@inntak/worker/espeak-speech-synthesizer';
import { PocketsphinxSpeechRecognizer } from '@inntak/worker/pocketsphinx-speech-recognizer';
import { decodeWav, DEFAULT_RATE, parseWav, resample, splitForSpeech, wordErrorRate } from '@inntak/media';

const PIECES = Number(process.argv[2] ?? 12);
const TEXT = [
  'Kommunestyret vedtok i kveld et nytt budsjett for skolene i bydelen, etter en lang debatt.',
  'Flere foreldre hadde møtt opp for å følge behandlingen, og mange var lettet over resultatet.',
  'Rådmannen sier at de nye midlene skal gå til lærere, lærebøker og oppussing av gymsalen.',
  'Opposisjonen mener likevel at pengene kommer for sent, og vil ta saken opp igjen til våren.',
  'Vegvesenet melder samtidig at den nye brua over fjorden åpner for trafikk i morgen tidlig.',
].join(' ');

const synthesizer = new EspeakSpeechSynthesizer();
const pieces = splitForSpeech(TEXT.repeat(Math.ceil(PIECES / 1.2))).slice(0, PIECES);
// One warm-up piece: the first module instantiation compiles the WebAssembly.
await synthesizer.synthesize(pieces[0]!, { voice: 'nb', rate: DEFAULT_RATE });

const cpuStart = process.cpuUsage();
const wallStart = performance.now();
let audioSeconds = 0;
let characters = 0;
for (const piece of pieces) {
  const wav = await synthesizer.synthesize(piece, { voice: 'nb', rate: DEFAULT_RATE });
  audioSeconds += parseWav(wav).durationS;
  characters += piece.length;
}
const cpu = process.cpuUsage(cpuStart);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const wallSeconds = (performance.now() - wallStart) / 1000;
process.stdout.write(
  `${JSON.stringify({
    pieces: pieces.length,
    characters,
    audio_seconds: Math.round(audioSeconds * 10) / 10,
    cpu_seconds: Math.round(cpuSeconds * 100) / 100,
    wall_seconds: Math.round(wallSeconds * 100) / 100,
    audio_seconds_per_cpu_second: Math.round((audioSeconds / cpuSeconds) * 10) / 10,
    audio_seconds_per_wall_second: Math.round((audioSeconds / wallSeconds) * 10) / 10,
  })}\n`,
);

/** Sentences read aloud and heard again: Norwegian (what the service reads) and English (what the model knows). */
const ROUND_TRIP = [
  { voice: 'nb', text: 'Den nye brua over fjorden åpner for trafikk i morgen tidlig.' },
  { voice: 'nb', text: 'Kommunestyret vedtok i kveld et nytt budsjett for skolene i bydelen.' },
  { voice: 'en-us', text: 'The new bridge over the fjord opens for traffic tomorrow morning.' },
  { voice: 'en-us', text: 'The city council passed a new budget for the schools tonight.' },
];
const modelDir = process.env.TRANSCRIPTION_MODEL_DIR ?? '/usr/share/pocketsphinx/model/en-us';
if (!existsSync(modelDir)) {
  process.stdout.write(`${JSON.stringify({ round_trip: `no transcription engine: ${modelDir} does not exist (apt-get install pocketsphinx pocketsphinx-en-us, or set TRANSCRIPTION_MODEL_DIR)` })}\n`);
} else {
  const recognizer = new PocketsphinxSpeechRecognizer(modelDir);
  for (const voice of ['nb', 'en-us']) {
    let errors = 0;
    let words = 0;
    const heard: string[] = [];
    const started = process.cpuUsage();
    for (const sentence of ROUND_TRIP.filter((s) => s.voice === voice)) {
      const decoded = decodeWav(await synthesizer.synthesize(sentence.text, { voice, rate: 160 }));
      const segments = await recognizer.recognize(resample(decoded.samples, decoded.sampleRate, recognizer.sampleRate), {});
      const hypothesis = segments.map((s) => s.text).join(' ');
      const n = sentence.text.split(/\s+/).length;
      errors += wordErrorRate(sentence.text, hypothesis) * n;
      words += n;
      heard.push(hypothesis);
    }
    const cpu = process.cpuUsage(started);
    process.stdout.write(
      `${JSON.stringify({ round_trip: voice, engine: recognizer.name, words, word_error_rate: Math.round((errors / words) * 100) / 100, heard, cpu_seconds_in_node: Math.round(((cpu.user + cpu.system) / 1e6) * 100) / 100 })}\n`,
    );
  }
}
