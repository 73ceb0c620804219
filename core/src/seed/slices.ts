/** The event loop time one slice of background indexing may take: requests wait at most about this long. */
export const SLICE_TARGET_MS = 8

/**
 * Runs `step(units)` (it does up to `units` of work and returns true when all is done) in slices between
 * event-loop turns, sizing each slice from the rate the previous one measured, so a slice takes about
 * `targetMs` whatever a unit costs (tokenizing a node, embedding its text: ~3 µs to ~100 µs). Fixed counts
 * held the loop for hundreds of milliseconds at a time on a big store, and every request waited behind them.
 */
export interface SliceOptions {
  targetMs?: number
  /** Units of the first slice, before any rate is measured. */
  first?: number
  now?: () => number
  /** Runs between slices: the next event-loop turn by default. */
  between?: () => Promise<void>
}

export async function inSlices(step: (units: number) => boolean, options: SliceOptions = {}): Promise<void> {
  const {
    targetMs = SLICE_TARGET_MS,
    first = 64,
    now = () => performance.now(),
    between = () => new Promise<void>((resolve) => setImmediate(resolve)),
  } = options
  let units = first
  for (;;) {
    const started = now()
    if (step(units)) return
    const took = now() - started
    // At most 4x bigger per slice: one fast slice (a run of empty ids) must not make the next one huge.
    units = Math.max(8, Math.min(units * 4, Math.round((units * targetMs) / Math.max(took, 0.05))))
    await between()
  }
}
