/**
 * The A/B evaluator under repeated looks (issue 24): false winners of A/A tests and the power to
 * find a real difference, for the always-valid evaluator (evaluateTest, mSPRT) next to the
 * spec's fixed-horizon z-test looked at once at each horizon, and the z-test asked at every
 * look (what the evaluator did before). 50 impressions per variant per 300 s look, 288 looks a
 * day; clicks drawn at fixed true rates, seed fixed.
 *   npm run bench:ab [-- tests-per-case]   (default 1,000)
 */
import { binomialSampler, mulberry32, sampleRatioTest, simulate, type HorizonResult } from '@inntak/ab-testing';

const TESTS = Number(process.argv[2] ?? 1000);
const DAY = 288;
const PER_LOOK = 50;

const percent = (x: number) => `${(100 * x).toFixed(1)} %`.padStart(8);

function run(title: string, rates: number[], days: number[], seed: number): void {
  const started = process.hrtime.bigint();
  const results = simulate({ rates, impressionsPerLook: PER_LOOK, horizons: days.map((d) => Math.round(d * DAY)), tests: TESTS, seed });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`\n${title} — rates ${rates.map((r) => `${(100 * r).toFixed(1)} %`).join(' / ')}, ${TESTS} tests, ${seconds.toFixed(1)} s`);
  const aa = rates.every((r) => r === rates[0]);
  console.log(aa ? '  within   always-valid  fixed z (one look)  z at every look' : '  within   always-valid (best)  fixed z (one look, best)  z at every look');
  results.forEach((r: HorizonResult, i) => {
    const when = `${days[i]! < 1 ? `${Math.round(days[i]! * 24)} h` : `${days[i]} d`}`.padEnd(8);
    console.log(aa ? `  ${when} ${percent(r.sequentialDecided)}     ${percent(r.fixedDecided)}           ${percent(r.peekingDecided)}` : `  ${when} ${percent(r.sequentialDecided)} (${percent(r.sequentialBest)})   ${percent(r.fixedDecided)} (${percent(r.fixedBest)})        ${percent(r.peekingDecided)}`);
  });
}

console.log(`A/B evaluator simulation: ${PER_LOOK} impressions per variant per 300 s look; "decided" is the share of tests with a winner.`);
run('A/A, two variants: false winners', [0.05, 0.05], [1 / 24, 1, 7], 1);
run('A/A, three variants: false winners', [0.05, 0.05, 0.05], [1 / 24, 1, 7], 2);
run('Power, 5 % → 6 %', [0.06, 0.05], [1 / 24, 6 / 24, 1, 7, 28], 3);
run('Power, 5 % → 7.5 %', [0.075, 0.05], [1 / 24, 6 / 24, 1, 7, 28], 4);

// The sample-ratio check under repeated looks: an honest random split (each of 100 visitors a
// look to A or B with probability ½), 7 days of looks. A flagged look only pauses decisions.
{
  const random = mulberry32(5);
  const draw = binomialSampler(2 * PER_LOOK, 0.5);
  let ever = 0;
  let paused = 0;
  for (let t = 0; t < TESTS; t++) {
    let a = 0;
    let flagged = false;
    for (let look = 1; look <= 7 * DAY; look++) {
      a += draw(random);
      if (sampleRatioTest([a, look * 2 * PER_LOOK - a]).mismatch) {
        flagged = true;
        paused += 1;
      }
    }
    if (flagged) ever += 1;
  }
  console.log(`\nSample-ratio check (p < 0.001) on an honest random split over 7 days: ${percent(ever / TESTS).trim()} of tests flagged at some look, ${percent(paused / (TESTS * 7 * DAY)).trim()} of looks paused`);
}
