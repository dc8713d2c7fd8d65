import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithEngine, engineUnavailable, ENGINES, type EngineName } from '@inntak/test-support';

// The optional engines (README, "Optional engines"): what a test says when one is missing, and
// that CI installs every one of them, so no test CI runs is skipped.
const root = new URL('../', import.meta.url);
const saved = { PATH: process.env.PATH, INNTAK_REQUIRE_ENGINES: process.env.INNTAK_REQUIRE_ENGINES };
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

/** Runs `fn` with a PATH on which no command is found. */
function withEmptyPath<T>(fn: () => T): T {
  const empty = mkdtempSync(join(tmpdir(), 'inntak-empty-path-'));
  process.env.PATH = empty;
  try {
    return fn();
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
}

describe('optional engines', () => {
  it('a missing engine is named in one line with the Debian packages that bring it', () => {
    withEmptyPath(() => {
      expect(engineUnavailable('curl-jq')).toBe('curl is not installed; apt-get install curl jq');
      expect(engineUnavailable('java')).toBe("Java (java, which runs npm vnu-jar's Nu HTML Checker) is not installed; apt-get install default-jre-headless");
      expect(engineUnavailable('pocketsphinx')).toBe('PocketSphinx (pocketsphinx_continuous) is not installed; apt-get install pocketsphinx pocketsphinx-en-us');
    });
  });

  it('a block needing a missing engine is skipped with that line, or fails the file under INNTAK_REQUIRE_ENGINES=1', () => {
    const ran: string[] = [];
    const describe = Object.assign((title: string) => void ran.push(`ran ${title}`), { skip: (title: string) => void ran.push(`skipped ${title}`) });
    const printed: string[] = [];
    const write = process.stderr.write;
    withEmptyPath(() => {
      delete process.env.INNTAK_REQUIRE_ENGINES;
      process.stderr.write = (chunk: string | Uint8Array) => printed.push(String(chunk)) > 0;
      try {
        describeWithEngine('curl-jq', describe, 'the shell examples', () => {});
      } finally {
        process.stderr.write = write;
      }
      expect(printed).toEqual(['"the shell examples" tests skipped: curl is not installed; apt-get install curl jq\n']);
      process.env.INNTAK_REQUIRE_ENGINES = '1';
      expect(() => describeWithEngine('curl-jq', describe, 'the shell examples', () => {})).toThrow(
        '"the shell examples" tests skipped: curl is not installed; apt-get install curl jq (INNTAK_REQUIRE_ENGINES=1 forbids the skip)',
      );
    });
    expect(ran).toEqual(['skipped the shell examples']);
  });

  it('.ci/run installs every engine before npm test and forbids skips there', () => {
    const ci = readFileSync(new URL('.ci/run', root), 'utf8');
    const beforeTests = ci.slice(0, ci.search(/^INNTAK_REQUIRE_ENGINES=1 npm test$/m));
    expect(beforeTests).not.toBe('');
    for (const name of Object.keys(ENGINES) as EngineName[]) {
      for (const pkg of ENGINES[name].packages) expect([name, new RegExp(`\\b${pkg}\\b`).test(beforeTests)]).toEqual([name, true]);
    }
  });

  it("the README's Optional engines table lists every engine's Debian packages", () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    const section = readme.slice(readme.indexOf('### Optional engines'), readme.indexOf('\n#', readme.indexOf('### Optional engines') + 1));
    for (const name of Object.keys(ENGINES) as EngineName[]) {
      for (const pkg of ENGINES[name].packages) expect([name, section.includes(`\`${pkg}\``)]).toEqual([name, true]);
    }
  });
});
