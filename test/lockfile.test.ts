import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';

// `npm ci` (the README's first command, and CI's) refuses a lock file in which a locked
// package's optional dependency has no entry of its own ("Missing: … from lock file"). An
// `npm install` against a registry that lacks some platform's build (a native binding for
// darwin or win32) writes exactly such a lock file, so this guards every merge of it.
interface LockEntry {
  optionalDependencies?: Record<string, string>;
}

describe('package-lock.json', () => {
  it('has an entry for every optional dependency of every locked package, so npm ci accepts it', () => {
    const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
      packages: Record<string, LockEntry>;
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        // npm resolves a dependency from the package's own node_modules upwards.
        const candidates: string[] = [];
        let base = path;
        for (;;) {
          candidates.push(base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`);
          const cut = base.lastIndexOf('/node_modules/');
          if (base === '') break;
          base = cut === -1 ? '' : base.slice(0, cut);
        }
        if (!candidates.some((c) => c in lock.packages)) missing.push(`${path} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
