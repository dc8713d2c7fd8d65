/**
 * `--table`: a list as aligned columns for a person at a terminal (JSON stays the default, for
 * scripts). The columns are the keys of the rows, in the first row's order; nested values are
 * shown as JSON, null and absent as empty.
 */
export function formatTable(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(ingen)';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)).replace(/\s+/g, ' ');
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: readonly string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** The rows a command answered with, if it answered with a list of objects. */
export function tableRows(value: unknown): Record<string, unknown>[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) return undefined;
  return value as Record<string, unknown>[];
}
