import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';

const VNU_JAR = join(dirname(createRequire(import.meta.url).resolve('vnu-jar')), 'build/dist/vnu.jar');

/** A page the checker must fault (a `p` closed inside a `div`): its silence proves nothing otherwise. */
const CANARY = '<!DOCTYPE html><html lang="en"><title>canary</title><p><div>x</p></div></html>';

interface VnuMessage {
  type: string;
  url?: string;
  message: string;
  extract?: string;
}

/**
 * The W3C Nu HTML Checker (npm vnu-jar, run by Java: engine `java`) over all `pages` in one
 * JVM start, the JVM's start being most of its time: every error, as "<page>: <message>
 * <extract>", mapped back to its page by file name. Empty when every page is valid. Throws when
 * the checker's report cannot be trusted: no JSON, a message about a file it was not given, or
 * no error on a page known to be invalid.
 */
export async function htmlErrors(pages: Record<string, string>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'inntak-vnu-'));
  try {
    // Files are named by index, so any page name maps back; the canary is checked alongside.
    const names = Object.keys(pages);
    const files = [...names.map((_, i) => join(dir, `${i}.html`)), join(dir, 'canary.html')];
    await Promise.all([...names.map((name, i) => writeFile(files[i]!, pages[name]!)), writeFile(files.at(-1)!, CANARY)]);
    // C1 alone (TieredStopAtLevel=1) halves the CPU of so short a run; its larger frames need
    // more stack than Java's default 1 MB for vnu's schema evaluation. --exit-zero-always: the
    // report, not the exit code, says what is wrong.
    const { stderr } = await promisify(execFile)(
      'java',
      ['-Xss4m', '-XX:TieredStopAtLevel=1', '-jar', VNU_JAR, '--errors-only', '--exit-zero-always', '--format', 'json', ...files],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    let report: { messages: VnuMessage[] };
    try {
      report = JSON.parse(stderr) as { messages: VnuMessage[] };
    } catch {
      throw new Error(`the Nu HTML Checker printed no JSON report: ${stderr.slice(0, 500)}`);
    }
    const byPage = names.map((): string[] => []);
    let canaryFaulted = false;
    for (const m of report.messages.filter((m) => m.type === 'error' || m.type === 'non-document-error')) {
      const file = m.url?.startsWith('file:') ? basename(m.url, '.html') : undefined;
      if (file === 'canary') canaryFaulted = true;
      else if (file !== undefined && /^\d+$/.test(file) && byPage[Number(file)]) byPage[Number(file)]!.push(`${names[Number(file)]}: ${m.message} ${m.extract ?? ''}`.trimEnd());
      else throw new Error(`the Nu HTML Checker reported on something it was not given: ${JSON.stringify(m)}`);
    }
    if (!canaryFaulted) throw new Error('the Nu HTML Checker found no error in a page known to be invalid');
    return byPage.flat();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
