import { describe, expect, it } from 'vitest'
import { ForegroundLoad, type LoopMeter, MAX_WAIT_MS, PROBE_MS } from './foreground-load.js'

/**
 * A fake loop: `busy(t)` says whether foreground work keeps the loop active at time t; the clock moves only
 * when the load waits or turns (a turn takes 0.1 ms, plus 5 ms of foreground work when it is busy).
 */
function harness(busy: (t: number) => boolean) {
  let clock = 0
  let active = 0
  const advance = (ms: number, share: number) => {
    clock += ms
    active += ms * share
  }
  const loop: LoopMeter = {
    mark: () => ({ clock, active }),
    shareSince: (m) => {
      const { clock: c, active: a } = m as { clock: number; active: number }
      return clock === c ? 0 : (active - a) / (clock - c)
    },
  }
  const waits: number[] = []
  const load = new ForegroundLoad(
    loop,
    async () => (busy(clock) ? advance(5, 1) : advance(0.1, 0)),
    async (ms) => {
      waits.push(ms)
      advance(ms, busy(clock) ? 0.9 : 0.05)
    },
    () => clock,
  )
  return { load, waits, at: () => clock }
}

describe('foreground load', () => {
  it('lets the next slice run after one turn when the loop is idle', async () => {
    const h = harness(() => false)
    await h.load.giveWay()
    expect(h.waits).toEqual([])
  })

  it('waits at most MAX_WAIT_MS under steady foreground work, so background work still moves', async () => {
    const h = harness(() => true)
    await h.load.giveWay()
    expect(h.waits.length).toBe(Math.ceil(MAX_WAIT_MS / PROBE_MS))
    expect(h.at()).toBeLessThanOrEqual(MAX_WAIT_MS + PROBE_MS + 5)
  })

  it('goes as soon as the foreground eases', async () => {
    const h = harness((t) => t < 20)
    await h.load.giveWay()
    expect(h.waits).toEqual([PROBE_MS, PROBE_MS])
  })

  it('once a probe found the loop quiet, slow turns go unprobed for a while (a slow turn can be the OS)', async () => {
    // Every turn looks slow (the clock moves 3 ms a reading) while the loop is measured idle.
    let t = 0
    const waits: number[] = []
    const load = new ForegroundLoad(
      { mark: () => null, shareSince: () => 0 },
      async () => {},
      async (ms) => {
        waits.push(ms)
      },
      () => (t += 3),
    )
    await load.giveWay()
    expect(waits).toEqual([PROBE_MS])
    await load.giveWay()
    expect(waits).toEqual([PROBE_MS])
  })

  it('counts recent commits as foreground work though the loop idles (writers waiting on fsync)', async () => {
    const h = harness(() => false)
    h.load.committed()
    await h.load.giveWay()
    // The commit was 0.1 ms ago: one probe, then the writes have paused for PROBE_MS and it goes.
    expect(h.waits).toEqual([PROBE_MS])

    // A commit during every probe: it waits out the bound, then lets a slice run anyway.
    let clock = 0
    let probes = 0
    const load: ForegroundLoad = new ForegroundLoad(
      { mark: () => null, shareSince: () => 0 },
      async () => {},
      async (ms) => {
        probes++
        clock += ms
        load.committed()
      },
      () => clock,
    )
    load.committed()
    await load.giveWay()
    expect(probes).toBe(Math.ceil(MAX_WAIT_MS / PROBE_MS))
  })
})
