// /health throughput of our server against a bare Fastify app in the same run (target ratio >= 0.8).
// Rounds alternate between the servers and medians are reported, so background load hits both alike.
// Beside requests/s it reports each server's own CPU time per request (Linux /proc): when the load
// generator, not the server, is the limit, requests/s of both meet at its ceiling and only CPU tells them apart.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { freePort, pinning, repoRoot, spawnServer, startService, waitReady } from './lib/server.mjs'

const ROUND_S = Number(process.env.BENCH_DURATION_S ?? 5)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50)

const run = (url, duration) =>
  new Promise((resolve, reject) => {
    autocannon({ url: `${url}/health`, connections: CONNECTIONS, duration }, (err, result) =>
      err ? reject(err) : resolve(result),
    )
  })
/** User + system CPU of a process in µs, or null where /proc is not available. */
function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * (1_000_000 / 100) // clock ticks at USER_HZ 100
  } catch {
    return null
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const pin = pinning()
const ours = await startService({ SERVICE_LOG_LEVEL: 'info' }, pin)
const body = await (await fetch(`${ours.url}/health`)).text()
const port = await freePort()
const bareChild = spawnServer(
  [join(repoRoot, 'bench', 'bare-fastify.mjs')],
  { env: { ...process.env, PORT: String(port), BODY: body }, stdio: 'inherit' },
  pin,
)
const bareUrl = `http://127.0.0.1:${port}`
await waitReady(bareUrl, bareChild)

const servers = [
  { name: 'bare Fastify (same JSON body)', url: bareUrl, pid: bareChild.pid, rounds: [] },
  { name: 'service-http-server /health', url: ours.url, pid: ours.child.pid, rounds: [] },
]
for (const s of servers) await run(s.url, 2) // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
    const cpu0 = cpuMicros(s.pid)
    const r = await run(s.url, ROUND_S)
    const cpu1 = cpuMicros(s.pid)
    s.rounds.push({
      cpuPerRequest: cpu0 === null || cpu1 === null ? null : (cpu1 - cpu0) / r.requests.total,
      rps: r.requests.average,
      p50: r.latency.p50,
      p99: r.latency.p99,
      errors: r.errors + r.non2xx,
    })
    process.stderr.write(
      `  round ${round + 1}/${ROUNDS} ${s.name}: ${Math.round(r.requests.average)} req/s\n`,
    )
  }
}
await ours.stop()
bareChild.kill('SIGTERM')

const rows = servers.map((s) => ({
  name: s.name,
  rps: median(s.rounds.map((r) => r.rps)),
  p50: median(s.rounds.map((r) => r.p50)),
  p99: median(s.rounds.map((r) => r.p99)),
  errors: s.rounds.reduce((n, r) => n + r.errors, 0),
  cpu: s.rounds.some((r) => r.cpuPerRequest === null) ? null : median(s.rounds.map((r) => r.cpuPerRequest)),
}))
const bare = rows[0].rps
console.log(
  `\n/health throughput: ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${ROUND_S} s, medians, Node ${process.version}`,
)
console.log(
  pin === null
    ? 'CPU pinning: off (no taskset, one CPU, or BENCH_PIN=0)'
    : `CPU pinning: servers on CPU ${pin.serverCpu}, load generator on CPU ${pin.loadCpu} (BENCH_PIN=0 turns it off)`,
)
const cpuCell = (r) => (r.cpu === null ? 'n/a' : r.cpu.toFixed(1))
console.log('| server | req/s | p50 ms | p99 ms | errors | ratio to bare | server CPU µs/request |')
console.log('|---|---:|---:|---:|---:|---:|---:|')
for (const r of rows)
  console.log(
    `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${(r.rps / bare).toFixed(2)} | ${cpuCell(r)} |`,
  )
console.log(`\nhealth ratio (ours / bare Fastify): ${(rows[1].rps / bare).toFixed(2)} (target >= 0.80)`)
if (rows[0].cpu !== null && rows[1].cpu !== null)
  console.log(
    `CPU per request (bare / ours): ${(rows[0].cpu / rows[1].cpu).toFixed(2)}; a server saturating one core serves ~${Math.round(1e6 / rows[1].cpu)} req/s (ours) vs ~${Math.round(1e6 / rows[0].cpu)} (bare)`,
  )
