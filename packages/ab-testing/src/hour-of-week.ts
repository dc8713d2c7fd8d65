/**
 * The hour of the week an AB event falls in, 0–167 (SPEC: AB events): Monday 00:00–00:59 UTC
 * is 0, Sunday 23:00–23:59 UTC is 167. UTC, so the value does not jump at daylight-saving changes.
 */
export function hourOfWeek(at: Date): number {
  const mondayBased = (at.getUTCDay() + 6) % 7;
  return mondayBased * 24 + at.getUTCHours();
}
