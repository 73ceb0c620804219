// Starts the built server as a child process for a benchmark and waits until it is ready.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
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

/** Our server, as a user runs it (bin entry, env settings). */
export async function startService(env = {}) {
  const port = await freePort()
  const child = spawn(process.execPath, [join(repoRoot, 'host', 'dist', 'main.js'), 'start'], {
    env: {
      PATH: process.env.PATH,
      SERVICE_HTTP_AUTH_TOKEN: BENCH_TOKEN,
      SERVICE_HTTP_PORT: String(port),
      SERVICE_HTTP_RATE_LIMIT_PER_SECOND: '10000000',
      SERVICE_HTTP_RATE_LIMIT_BURST: '10000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  await waitReady(url, child)
  return { url, child, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) }
}
