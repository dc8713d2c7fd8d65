import { readFileSync } from 'node:fs';
import type { Headers } from '../types.js';

/** The shared fixtures live beside the repository: <repo>/../shared/fixtures. */
export const FIXTURES_DIR = new URL('../../../../../shared/fixtures/', import.meta.url);

export interface Fixture {
  file: string;
  templateId: string;
  sourceSystem: string;
  headers: Headers;
  payload: unknown;
  note: string;
}

/** MANIFEST.tsv rows with their payloads; the event header column (`Name=value` or `-`) becomes headers. */
export function loadFixtures(): Fixture[] {
  const rows = readFileSync(new URL('MANIFEST.tsv', FIXTURES_DIR), 'utf8').trim().split('\n').slice(1);
  return rows.map((row) => {
    const [file, templateId, sourceSystem, eventHeader, , , , note] = row.split('\t') as string[];
    const headers: Record<string, string> = {};
    if (eventHeader && eventHeader !== '-') {
      const eq = eventHeader.indexOf('=');
      headers[eventHeader.slice(0, eq).toLowerCase()] = eventHeader.slice(eq + 1);
    }
    return {
      file: file!,
      templateId: templateId!,
      sourceSystem: sourceSystem!,
      headers,
      payload: JSON.parse(readFileSync(new URL(file!, FIXTURES_DIR), 'utf8')) as unknown,
      note: note ?? '',
    };
  });
}

const ALL = loadFixtures();

export function fixture(file: string): Fixture {
  const found = ALL.find((f) => f.file === file || f.file.endsWith(`/${file}`));
  if (!found) throw new Error(`no fixture ${file}`);
  return found;
}

export function fixturesFor(templateId: string): Fixture[] {
  return ALL.filter((f) => f.templateId === templateId);
}

export function allFixtures(): Fixture[] {
  return ALL;
}
