/**
 * Where one `inntak` call's time goes: wall and CPU milliseconds since the process started, at
 * each step of main.ts. Logged at debug level when the call ends (`LOG_LEVEL=debug`); `npm run
 * bench:cli` reads it (docs/cli.md, "Speed"). A mark is a clock reading, so it costs nothing.
 */
export interface PhaseMark {
  phase: string;
  ms: number;
  cpu_ms: number;
}

const marks: PhaseMark[] = [];

export function mark(phase: string): void {
  const cpu = process.cpuUsage();
  marks.push({ phase, ms: Math.round(performance.now()), cpu_ms: Math.round((cpu.user + cpu.system) / 1000) });
}

export function phases(): readonly PhaseMark[] {
  return marks;
}
