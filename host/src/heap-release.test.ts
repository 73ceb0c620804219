import { describe, expect, it } from 'vitest'
import { HEAP_RELEASE_DEFAULTS, type HeapProbe, HeapRelease, processHeapProbe } from './heap-release.js'
import { glibcVersion, mallocTrimmer } from './malloc-trim.js'

const MB = 1024 * 1024

/** A heap that grows by hand and halves its garbage on each collection; the loop's busy share set by hand. */
function fakeProbe(live: number) {
  const state = { used: live, live, busy: 0, collections: 0, returned: 0 }
  const probe: HeapProbe = {
    heapUsed: () => state.used,
    busyShare: () => state.busy,
    collect: () => {
      state.collections++
      state.used = state.live
    },
    returnFreed: () => {
      state.returned = state.collections
    },
  }
  return { state, probe }
}

describe('heap release after bulk work', () => {
  it('collects once the loop is quiet and the heap grew past both thresholds, then counts from what is live', () => {
    const { state, probe } = fakeProbe(100 * MB)
    const release = new HeapRelease(probe)
    state.used = 300 * MB
    state.busy = 0.6
    expect(release.tick()).toBe(false)
    state.busy = 0.01
    state.live = 120 * MB
    expect(release.tick()).toBe(true)
    expect(state.collections).toBe(2)
    // What the collections freed goes back to the OS after both.
    expect(state.returned).toBe(2)
    // Growth is measured from the live size the collection left (120 MB).
    state.used = 170 * MB
    expect(release.tick()).toBe(false)
    state.used = 190 * MB
    expect(release.tick()).toBe(true)
  })

  it('leaves small growth alone, in bytes and as a share', () => {
    const { state, probe } = fakeProbe(400 * MB)
    const release = new HeapRelease(probe)
    state.used = 400 * MB + HEAP_RELEASE_DEFAULTS.minGrowthBytes // 16 % of 400 MB: under the share
    expect(release.tick()).toBe(false)
    const small = fakeProbe(10 * MB)
    const other = new HeapRelease(small.probe)
    small.state.used = 60 * MB // 500 % but under the byte floor
    expect(other.tick()).toBe(false)
    expect(state.collections + small.state.collections).toBe(0)
  })

  it('follows the heap down when V8 collected on its own', () => {
    const { state, probe } = fakeProbe(300 * MB)
    const release = new HeapRelease(probe)
    state.used = 100 * MB
    expect(release.tick()).toBe(false)
    state.used = 190 * MB // +90 MB over the new baseline of 100 MB
    expect(release.tick()).toBe(true)
  })

  it('shrinks a large young generation after two quiet looks, and leaves a small one alone', () => {
    const { state, probe } = fakeProbe(100 * MB)
    const young = { committed: 32 * MB, collections: 0, trims: 0 }
    probe.youngCommitted = () => young.committed
    probe.collectYoung = () => {
      young.collections++
    }
    probe.returnFreed = () => {
      young.trims++
    }
    const release = new HeapRelease(probe)
    state.busy = 0.5
    release.tick()
    state.busy = 0.01
    release.tick() // the first quiet look: work may only be pausing
    expect(young.collections).toBe(0)
    release.tick()
    expect(young.collections).toBe(2)
    expect(young.trims).toBe(1) // what the collections freed goes back to the OS too
    young.committed = 4 * MB
    release.tick()
    expect(young.collections).toBe(2)
  })

  it('shrinks the young generation in the same look as a release collection, then returns what both freed', () => {
    const { state, probe } = fakeProbe(100 * MB)
    const calls: string[] = []
    probe.collect = () => {
      calls.push('full')
      state.used = state.live
    }
    probe.youngCommitted = () => 32 * MB
    probe.collectYoung = () => calls.push('young')
    probe.returnFreed = () => calls.push('return')
    const release = new HeapRelease(probe)
    state.used = 300 * MB
    state.busy = 0.01
    expect(release.tick()).toBe(true)
    expect(calls).toEqual(['full', 'full', 'young', 'young', 'return'])
  })

  it('shrinks the real young generation once allocation has stopped', async () => {
    const probe = processHeapProbe()
    let keep: { n: number; list: number[] }[] = []
    for (let i = 0; i < 2_000_000; i++) {
      const o = { n: i, list: [i] }
      if (i % 10 === 0) keep.push(o)
    }
    expect(probe?.youngCommitted?.()).toBeGreaterThan(HEAP_RELEASE_DEFAULTS.youngShrinkBytes)
    // V8 shrinks in a young collection that finds the allocation rate low: a quiet second or two.
    for (
      let i = 0;
      i < 20 && (probe?.youngCommitted?.() ?? 0) > HEAP_RELEASE_DEFAULTS.youngShrinkBytes;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 500))
      probe?.collectYoung?.()
      probe?.collectYoung?.()
    }
    expect(probe?.youngCommitted?.()).toBeLessThanOrEqual(HEAP_RELEASE_DEFAULTS.youngShrinkBytes)
    keep = []
    expect(keep).toEqual([])
  }, 20_000)

  it('reaches the real collector and frees what is no longer referenced', () => {
    const probe = processHeapProbe()
    expect(probe).not.toBeNull()
    let garbage: number[][] | null = Array.from({ length: 2000 }, () =>
      Array.from({ length: 1000 }, (_, i) => i),
    )
    const before = probe?.heapUsed() ?? 0
    garbage = null
    probe?.collect()
    expect(garbage).toBeNull()
    expect(probe?.heapUsed() ?? before).toBeLessThan(before - 8 * MB)
    expect(probe?.busyShare()).toBeGreaterThanOrEqual(0)
  })

  it('returns freed C heap to the OS through glibc where the process has it', async () => {
    const trim = mallocTrimmer()
    if (process.platform !== 'linux' || glibcVersion() === undefined) {
      expect(trim).toBeNull()
      return
    }
    expect(trim).not.toBeNull()
    // 64 MB of 32 KB buffers (under glibc's mmap threshold, so in its heap), each followed by a small buffer
    // that stays: the freed ones cannot merge into the heap's top, which free() alone would give back. After
    // they are collected glibc keeps their pages resident until trimmed.
    const pins: Uint8Array[] = []
    let buffers: Uint8Array[] | null = []
    for (let i = 0; i < 2000; i++) {
      buffers.push(new Uint8Array(32 * 1024).fill(1))
      pins.push(new Uint8Array(256).fill(2))
    }
    buffers = null
    processHeapProbe()?.collect()
    const before = process.memoryUsage.rss()
    // V8 frees collected buffers' memory on a background thread: on a busy machine some frees land after
    // the first trim, so trim again (as the release does on its next look) until they are all returned.
    let after = before
    for (let attempt = 0; attempt < 20 && after >= before - 16 * MB; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50))
      trim?.()
      after = process.memoryUsage.rss()
    }
    expect(pins).toHaveLength(2000)
    expect(buffers).toBeNull()
    expect(after).toBeLessThan(before - 16 * MB)
    expect(processHeapProbe()?.returnFreed).toBeTypeOf('function')
  })
})
