/**
 * Seconds of speech eSpeak NG synthesizes per second of this process's CPU time, on Norwegian
 * news text split into pieces the way tts_generate splits it. CPU time rather than wall time, so
 * that a shared machine's other load does not count (the wall figure is printed beside it).
 *   npm run bench:tts [-- pieces]
 */
import { EspeakSpeechSynthesizer } from '@inntak/worker/espeak-speech-synthesizer';
import { DEFAULT_RATE, parseWav, splitForSpeech } from '@inntak/media';

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
