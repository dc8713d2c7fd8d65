import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export { freePort } from '@inntak/test-support';

export interface Started {
  child: ChildProcess;
  /** Every JSON log message seen on stdout, and every stderr line, in order. */
  messages: string[];
  stderr: string[];
  exited: Promise<number | null>;
  /** Resolves when a stdout log line with this message has been seen. */
  seen(message: string, timeoutMs?: number): Promise<void>;
}

/**
 * `npm start` as a user runs it, from the repository root, in a process group of its own (so a
 * failed test can still end the whole tree).
 */
export function npmStart(env: NodeJS.ProcessEnv): Started {
  const child = spawn('npm', ['start'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const messages: string[] = [];
  const stderr: string[] = [];
  const waiters: Array<{ message: string; resolve: () => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: string;
    try {
      message = (JSON.parse(line) as { message: string }).message;
    } catch {
      return;
    }
    messages.push(message);
    for (const w of waiters.filter((w) => w.message === message)) w.resolve();
  });
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    messages,
    stderr,
    exited,
    seen(message, timeoutMs = 240_000) {
      if (messages.includes(message)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${message}" within ${timeoutMs} ms; seen: ${messages.join(' | ')}; stderr: ${stderr.join(' | ')}`)), timeoutMs);
        waiters.push({
          message,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/** Ends a test's process group, whatever is left of it. */
export function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

/** The process and all its descendants, read from /proc. */
export function processTree(root: number): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      all.push({ pid: Number(entry), ppid, cmdline });
    } catch {
      // exited while we looked
    }
  }
  const tree = all.filter((p) => p.pid === root);
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((p) => p.ppid === tree[i]!.pid));
  return tree;
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
