// A copy of packages/templates/src/__tests__/growth.ts: a domain package imports no test package.
/** CPU milliseconds of `times` runs: other processes on a busy machine take wall time, not this. */
function cpuMs(run: () => unknown, times: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < times; i++) run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * How many times longer `work` takes on an input `factor` times as large: about `factor` for a
 * linear path, its square for a quadratic one. How fast is not asserted in tests (a busy machine
 * slows any run; speed goals are `npm run bench:*`), how the cost grows is: the fastest of three
 * runs of each size in CPU time, interleaved so a garbage collection hits both, each repeated
 * until it is well above the clock's resolution. `work(size)` prepares its input and returns the
 * run, so preparing is not measured.
 */
export function cpuGrowth(work: (size: number) => () => unknown, size: number, factor = 4): number {
  const small = work(size);
  const large = work(factor * size);
  small();
  large();
  // Repeated until even the faster of two runs is long enough: one slow first run (a compile, a
  // collection) must not leave the measurement at a few microseconds.
  let times = 1;
  while (Math.min(cpuMs(small, times), cpuMs(small, times)) < 10 && times < 1 << 20) times *= 2;
  let [a, b] = [Infinity, Infinity];
  for (let i = 0; i < 3; i++) {
    a = Math.min(a, cpuMs(small, times));
    b = Math.min(b, cpuMs(large, times));
  }
  return b / a;
}
