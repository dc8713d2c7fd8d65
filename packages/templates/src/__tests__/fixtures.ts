import { readFileSync } from 'node:fs';
import { expect, it } from '@jest/globals';
import type { Headers, Template } from '../types.js';

/** Real payloads of 15 senders, kept in packages/templates/fixtures (see its README). */
export const FIXTURES_DIR = new URL('../../fixtures/', import.meta.url);

export interface Fixture {
  file: string;
  templateId: string;
  sourceSystem: string;
  headers: Headers;
  payload: unknown;
  note: string;
}

/** MANIFEST.tsv rows with their payloads; the event header column (`Name=value` or `-`) becomes headers. */
export function loadFixtures(dir: URL = FIXTURES_DIR): Fixture[] {
  const rows = readFileSync(new URL('MANIFEST.tsv', dir), 'utf8').trim().split('\n').slice(1);
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
      payload: JSON.parse(readFileSync(new URL(file!, dir), 'utf8')) as unknown,
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

export interface Expectation {
  file: string;
  title: string;
  /** Lines (or fragments) the content must contain. */
  content: string[];
  metadata: Record<string, unknown>;
}

/** One test per fixture of the template, with its explicit facts, plus a check that none is left out. */
export function expectFixtureRenderings(template: Template, expected: Expectation[]): void {
  it(`has an expectation for every ${template.id} fixture`, () => {
    expect(expected.map((e) => e.file).sort()).toEqual(fixturesFor(template.id).map((f) => f.file.split('/')[1]).sort());
  });

  it.each(expected)('$file', ({ file, title, content, metadata }) => {
    const f = fixture(file);
    const r = template.render(f.payload, f.headers);
    expect(r.title).toBe(title);
    for (const line of content) expect(r.content).toContain(line);
    expect(r.extra_metadata).toMatchObject({ template: template.id, template_version: 3, ...metadata });
    expect(r.unsupported_event).toBeUndefined();
  });
}

/** A fixture rendered with its MANIFEST event header, or as if posted without headers. */
export function renderFixture(template: Template, file: string, withHeaders = true) {
  const f = fixture(file);
  return template.render(f.payload, withHeaders ? f.headers : {});
}
