/** The live-room port: is any live-room session active right now? */
export interface LiveRoomStatus {
  isActive(): Promise<boolean>;
}

/** Spec, Limits: the live-room status is cached 10 s. */
export const LIVE_ROOM_CACHE_MS = 10_000;

/** Wraps a live-room port in a cache; concurrent callers share one lookup. */
export function cachedLiveRoomStatus(source: LiveRoomStatus, ttlMs = LIVE_ROOM_CACHE_MS, now: () => number = Date.now): LiveRoomStatus {
  let cached: { value: Promise<boolean>; at: number } | undefined;
  return {
    isActive() {
      const time = now();
      if (!cached || time - cached.at >= ttlMs) {
        const value = source.isActive();
        cached = { value, at: time };
        // A failed lookup is not cached.
        value.catch(() => {
          if (cached?.value === value) cached = undefined;
        });
      }
      return cached.value;
    },
  };
}
