import { openEngine } from '@service/core'
const dir = process.argv[2]
const engine = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: true } })
await engine.seed.warm()
globalThis.gc?.()
await new Promise((r) => setTimeout(r, 500))
const idle = []
{
  let l = performance.now()
  const t = setInterval(() => { const n = performance.now(); idle.push(n - l); l = n }, 1)
  await new Promise((r) => setTimeout(r, 2000))
  clearInterval(t)
  idle.sort((a, b) => b - a)
  process.stderr.write(`idle worst ${idle.slice(0, 3).map(Math.round).join(' ')}\n`)
}
const stalls = []
let last = performance.now()
const t0 = performance.now()
const timer = setInterval(() => {
  const now = performance.now()
  if (now - last > 6) stalls.push([Math.round(last), Math.round(now - last)])
  last = now
}, 1)
process.stderr.write(`checkpoint starts at ${Math.round(t0)}\n`)
await engine.checkpoint()
clearInterval(timer)
process.stderr.write(`checkpoint ends at ${Math.round(performance.now())} (${Math.round(performance.now() - t0)} ms)\n`)
for (const [at, ms] of stalls) if (process.env.ALL) process.stderr.write(`stall at ${at} (+${at - Math.round(t0)}): ${ms} ms\n`)
stalls.sort((a, b) => b[1] - a[1])
const tEnd = Math.round(performance.now())
process.stderr.write(`worst: ${stalls.slice(0, 8).map(([at, ms]) => `${ms}@+${at - Math.round(t0)}/-${tEnd - at}`).join(' ')}; over 6 ms: ${stalls.length}\n`)
await engine.close()
