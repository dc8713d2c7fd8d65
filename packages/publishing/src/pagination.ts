/** Listing pages show PAGE_SIZE articles; `?side=N` asks for page N (1-based). */
export const PAGE_SIZE = 20;
/** Offsets stay bounded: deeper pages answer 404 (the archive's months link further back). */
export const MAX_PAGE = 500;

/**
 * The page number `?side=` asks for: absent is 1; anything but a whole number 1…MAX_PAGE is
 * undefined (a page that does not exist: 404).
 */
export function parsePage(raw: unknown): number | undefined {
  if (raw === undefined) return 1;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,3}$/.test(raw)) return undefined;
  const page = Number(raw);
  return page <= MAX_PAGE ? page : undefined;
}

export interface PageWindow {
  limit: number;
  offset: number;
}

/** Rows to read for a page: one more than shown, to learn whether a next page exists. */
export function pageWindow(page: number): PageWindow {
  return { limit: PAGE_SIZE + 1, offset: (page - 1) * PAGE_SIZE };
}

/** Cuts the extra row pageWindow read; page 2+ with no rows is a page that does not exist. */
export function paginate<T>(rows: readonly T[], page: number): { items: T[]; page: number; hasNext: boolean } | undefined {
  if (page > 1 && rows.length === 0) return undefined;
  return { items: rows.slice(0, PAGE_SIZE), page, hasNext: rows.length > PAGE_SIZE };
}
