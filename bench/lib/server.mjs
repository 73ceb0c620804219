// Starts the built server as a child process for a benchmark and waits until it is ready.
import { spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { availableParallelism } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const BENCH_TOKEN = 'bench-token'

export async function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolvePort(port))
    })
  })
}

export async function waitReady(url, child, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}`)
    try {
      const res = await fetch(`${url}/health/ready`)
      if (res.status === 200) return
    } catch {}
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('not ready in time')
}

/**
 * CPU pinning for throughput runs: on a small machine the load generator and the server otherwise fight
 * over the same cores and the scheduler's choices swing results by tens of percent between runs. When
 * `taskset` exists and there are two or more CPUs, servers run on the last CPU and the caller (the load
 * generator) on the first. `null` when pinning is unavailable or BENCH_PIN=0.
 */
export function pinning() {
  const cpus = availableParallelism()
  if (process.env.BENCH_PIN === '0' || cpus < 2) return null
  if (spawnSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' }).status !== 0)
    return null
  return { serverCpu: cpus - 1, loadCpu: 0 }
}

/** `BENCH_SERVER_PROFILE=dir`: the servers a bench starts write a V8 CPU profile there when they stop. */
const profileArgs = () =>
  process.env.BENCH_SERVER_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_PROFILE}`] : []

/** `spawn`, on the server CPU when `pin` is set. */
export function spawnServer(args, options, pin = null) {
  args = [...profileArgs(), ...args]
  return pin === null
    ? spawn(process.execPath, args, options)
    : spawn('taskset', ['-c', String(pin.serverCpu), process.execPath, ...args], options)
}

/** Our server, as a user runs it (bin entry, env settings). */
export async function startService(env = {}, pin = null, readyTimeoutMs = 30_000) {
  const port = await freePort()
  const child = spawnServer(
    [join(repoRoot, 'host', 'dist', 'main.js'), 'start'],
    {
      env: {
        PATH: process.env.PATH,
        SERVICE_HTTP_AUTH_TOKEN: BENCH_TOKEN,
        SERVICE_HTTP_PORT: String(port),
        SERVICE_BOLT_ENABLED: 'false',
        SERVICE_HTTP_RATE_LIMIT_PER_SECOND: '10000000',
        SERVICE_HTTP_RATE_LIMIT_BURST: '10000000',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
    pin,
  )
  const url = `http://127.0.0.1:${port}`
  await waitReady(url, child, readyTimeoutMs)
  const stop = () =>
    new Promise((r) => {
      child.once('exit', r)
      child.kill('SIGTERM')
    })
  return { url, child, stop }
}
