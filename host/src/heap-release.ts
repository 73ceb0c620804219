import { type EventLoopUtilization, performance } from 'node:perf_hooks'
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { mallocTrimmer } from './malloc-trim.js'

/** What the release policy reads; the process's own figures in the server, fakes in tests. */
export interface HeapProbe {
  heapUsed(): number
  /** Share of the last interval the event loop was busy (0..1). */
  busyShare(): number
  /** A full, compacting collection. */
  collect(): void
  /** Hands memory the collections freed back to the OS (malloc-trim.ts), where the allocator keeps it. */
  returnFreed?(): void
  /** Bytes the young generation holds committed (both semi-spaces). */
  youngCommitted?(): number
  /** A young-generation collection: after a quiet while, V8 then shrinks the young generation. */
  collectYoung?(): void
}

export interface HeapReleaseOptions {
  /** How often the policy looks (ms). */
  intervalMs: number
  /** The loop counts as quiet below this busy share over one interval. */
  quietShare: number
  /** Growth of the heap past its size after the last release that is worth a collection (bytes). */
  minGrowthBytes: number
  /** ... and as a share of that size. */
  minGrowthShare: number
  /** A young generation committed past this is shrunk once the loop has been quiet for two intervals (bytes). */
  youngShrinkBytes: number
}

export const HEAP_RELEASE_DEFAULTS: HeapReleaseOptions = {
  intervalMs: 1000,
  quietShare: 0.05,
  minGrowthBytes: 64 * 1024 * 1024,
  minGrowthShare: 0.25,
  youngShrinkBytes: 8 * 1024 * 1024,
}

/**
 * Gives memory back once bulk work is over. After a burst (recovery of a big store, the seed index rebuilt
 * behind it, a large import) the heap holds the burst's garbage until the next full collection, which V8
 * starts only when allocation goes on; an idle server keeps it. Measured on a restart of the 201k-object
 * footprint set: 590 MB of RSS with 340 MB of heap of which 199 MB was live, still so after 20 s of idle;
 * two full collections took it to 395 MB (the second compacts and frees the buffers the first released).
 * So when the loop has been quiet for one interval and the heap has grown well past its size after the last
 * release, this runs them: a pause of a few hundred ms at that size, in a moment with nothing to delay.
 */
export class HeapRelease {
  private baseline: number
  private timer: NodeJS.Timeout | null = null
  /** The last look found the loop quiet. */
  private wasQuiet = false

  constructor(
    private readonly probe: HeapProbe,
    private readonly options: HeapReleaseOptions = HEAP_RELEASE_DEFAULTS,
  ) {
    this.baseline = probe.heapUsed()
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), this.options.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }

  /** One look: true when it collected. */
  tick(): boolean {
    const busy = this.probe.busyShare()
    const used = this.probe.heapUsed()
    const growth = used - this.baseline
    const worth =
      growth >= this.options.minGrowthBytes && growth >= this.baseline * this.options.minGrowthShare
    const quiet = busy < this.options.quietShare
    const quietBefore = this.wasQuiet
    this.wasQuiet = quiet
    if (!worth || !quiet) {
      // Shrinking on its own (V8 collected): follow it down, so growth counts from what is live.
      if (used < this.baseline) this.baseline = used
      if (quiet && quietBefore) this.shrinkYoung()
      return false
    }
    this.probe.collect()
    this.probe.collect()
    // The full collections leave the young generation at its bulk size; with the loop quiet it goes now too,
    // not two looks later (measured on the 201k restart: 316 MB for 6 s more before it went).
    this.shrinkYoung(false)
    this.probe.returnFreed?.()
    this.baseline = this.probe.heapUsed()
    return true
  }

  /**
   * Bulk work grows the young generation to its maximum (two 16 MB semi-spaces), and V8 keeps it so while
   * nothing allocates: ~26 MB of RSS on the 201k-object restart. It shrinks it in a young collection that
   * finds allocation slow, which an idle server never runs; so after two quiet intervals this runs two (about
   * a millisecond each with little live in the nursery). It grows back as soon as work needs it.
   */
  private shrinkYoung(returnFreed = true): void {
    const committed = this.probe.youngCommitted?.()
    if (committed === undefined || committed <= this.options.youngShrinkBytes) return
    this.probe.collectYoung?.()
    this.probe.collectYoung?.()
    if (returnFreed) this.probe.returnFreed?.()
  }
}

/**
 * The process's own probe. `gc` is not exposed without `--expose-gc` on the command line, which a user
 * starting `node host/dist/main.js` does not pass; the flag set at run time exposes it to contexts created
 * after, and a fresh context hands the function back. Null when that is refused (the policy then stays off).
 */
export function processHeapProbe(): HeapProbe | null {
  let gc: unknown
  try {
    setFlagsFromString('--expose-gc')
    gc = runInNewContext('typeof gc === "function" ? gc : undefined')
  } catch {
    return null
  }
  if (typeof gc !== 'function') return null
  const collect = gc as (options?: { type: 'major' | 'minor' }) => void
  const trim = mallocTrimmer()
  let last: EventLoopUtilization = performance.eventLoopUtilization()
  return {
    heapUsed: () => getHeapStatistics().used_heap_size,
    busyShare: () => {
      const now = performance.eventLoopUtilization()
      const share = performance.eventLoopUtilization(now, last).utilization
      last = now
      return share
    },
    collect: () => collect(),
    ...(trim === null ? {} : { returnFreed: trim }),
    youngCommitted: () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0,
    collectYoung: () => collect({ type: 'minor' }),
  }
}
