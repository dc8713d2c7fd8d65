/**
 * `--table`: a list as aligned columns for a person at a terminal (JSON stays the default, for
 * scripts). The columns are the keys of the rows, in the first row's order; nested values are
 * shown as JSON, times as ISO 8601 (UTC), null and absent as empty.
 */
export function formatTable(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(ingen)';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (value: unknown) =>
    (value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value)).replace(/\s+/g, ' ');
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: readonly string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/**
 * What `--table` prints for a command's answer: a list of objects as columns; a page
 * (`{persons: [...], next_cursor}`, one list and its cursor) as the list's columns and, when
 * there is more, the option that shows the next page. Anything else: undefined (JSON then).
 */
export function tableOf(answer: unknown): string | undefined {
  const rows = tableRows(answer);
  if (rows) return formatTable(rows);
  if (typeof answer !== 'object' || answer === null || !('next_cursor' in answer)) return undefined;
  const { next_cursor: next, ...rest } = answer as Record<string, unknown>;
  const lists = Object.values(rest);
  const pageRows = lists.length === 1 ? tableRows(lists[0]) : undefined;
  if (!pageRows) return undefined;
  return typeof next === 'string' ? `${formatTable(pageRows)}\n(neste side: --cursor ${next})` : formatTable(pageRows);
}

/** The rows a command answered with, if it answered with a list of objects. */
function tableRows(value: unknown): Record<string, unknown>[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) return undefined;
  return value as Record<string, unknown>[];
}
