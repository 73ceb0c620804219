/**
 * Starts the built server (`host/dist/main.js`) as a real child process on a free loopback port and talks
 * HTTP to it. Builds nothing itself: the test command builds first.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, request as undiciRequest } from 'undici'
import { afterAll } from 'vitest'
import { holdsPort } from './port-owner.js'

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const serverMain = join(repoRoot, 'host', 'dist', 'main.js')
export const sharedDir = resolve(repoRoot, process.env.SHARED_DIR ?? '../shared')
export const sharedPresent = existsSync(join(sharedDir, 'spec', 'interface-spec.md'))

export const TOKEN = 'e2e-bearer-token-0123456789'
export const ADMIN_TOKEN = 'e2e-admin-token-9876543210'

/** A port that was free a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolvePort(port))
    })
  })
}

export interface HttpResponse<T = unknown> {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json: T
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: unknown
  rawBody?: string | Buffer
  token?: string | null
}

export interface RunningServer {
  url: string
  port: number
  process: ChildProcess
  /** Everything the process wrote so far. */
  stdout(): string
  stderr(): string
  request<T = unknown>(path: string, options?: RequestOptions): Promise<HttpResponse<T>>
  /** SIGTERM and wait for exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
  /** SIGKILL and wait for exit. */
  kill(): Promise<void>
  exited: Promise<number | null>
}

export interface StartOptions {
  env?: Record<string, string | undefined>
  /** Default: a fresh free port. */
  port?: number
  https?: boolean
  /** Wait for /health/ready (default true). */
  waitReady?: boolean
  timeoutMs?: number
  /** The server's entry point (default: this repository's `host/dist/main.js`). */
  main?: string
  /** Working directory (the deployment packs are resolved from); default: the test process's. */
  cwd?: string
}

/**
 * Every child process a test file starts through this harness (server, TAXII server, connector). A failed
 * or timed-out test skips its own `stop()`, so whatever is still alive is killed when the file ends, and
 * again (synchronously) if the worker exits first: no test leaves a process behind.
 */
const children = new Set<ChildProcess>()

export function trackChild(child: ChildProcess): ChildProcess {
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

function killTracked(): Promise<void> {
  const waits = [...children].map(
    (child) =>
      new Promise<void>((resolveExit) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolveExit()
        child.once('exit', () => resolveExit())
        child.kill('SIGKILL')
      }),
  )
  return Promise.all(waits).then(() => undefined)
}

afterAll(killTracked)
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL')
})

const insecureAgent = new Agent({ connect: { rejectUnauthorized: false } })

export function baseEnv(port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    SERVICE_HTTP_AUTH_TOKEN: TOKEN,
    SERVICE_HTTP_HOST: '127.0.0.1',
    SERVICE_HTTP_PORT: String(port),
    // Tests send many requests quickly; the rate-limit test sets its own figures.
    SERVICE_HTTP_RATE_LIMIT_PER_SECOND: '100000',
    SERVICE_HTTP_RATE_LIMIT_BURST: '100000',
    SERVICE_LOG_LEVEL: 'info',
    // The local word-vector model costs seconds and ~1 GB at first load; only the seed tests ask for it.
    SERVICE_SEED_EMBEDDING_PROVIDER: 'none',
    // Bolt listens on 7687 by default: servers started side by side would fight over it. The Bolt tests
    // turn it on with a free port (boltEnv).
    SERVICE_BOLT_ENABLED: 'false',
  }
}

/** Settings that turn Bolt on at a free port (read it back from `boltPort`). */
export async function boltEnv(): Promise<Record<string, string>> {
  return { SERVICE_BOLT_ENABLED: 'true', SERVICE_BOLT_PORT: String(await freePort()) }
}

export async function startServer(options: StartOptions = {}, attempt = 1): Promise<RunningServer> {
  const port = options.port ?? (await freePort())
  const env: Record<string, string> = { ...baseEnv(port) }
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  const child = trackChild(
    spawn(process.execPath, [options.main ?? serverMain, 'start'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    }),
  )
  let out = ''
  let err = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8')
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)))
  const scheme = options.https ? 'https' : 'http'
  const url = `${scheme}://127.0.0.1:${port}`

  const request = async <T>(path: string, opts: RequestOptions = {}): Promise<HttpResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers }
    const token = opts.token === undefined ? TOKEN : opts.token
    if (token !== null && headers.authorization === undefined) headers.authorization = `Bearer ${token}`
    let body: string | Buffer | undefined
    if (opts.rawBody !== undefined) body = opts.rawBody
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] ??= 'application/json'
    }
    const response = await undiciRequest(`${url}${path}`, {
      method: (opts.method ?? (body === undefined ? 'GET' : 'POST')) as 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
      ...(options.https ? { dispatcher: insecureAgent } : {}),
    })
    const text = await response.body.text()
    let json: unknown
    try {
      json = text === '' ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.statusCode, headers: response.headers, text, json: json as T }
  }

  const server: RunningServer = {
    url,
    port,
    process: child,
    stdout: () => out,
    stderr: () => err,
    request,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill(signal)
      return exited
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGKILL')
      await exited
    },
  }

  if (options.waitReady ?? true) {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000)
    for (;;) {
      if (child.exitCode !== null) {
        // Another test's server took the port between freePort and our bind: try another one.
        if (options.port === undefined && attempt < 3 && err.includes('cannot listen on'))
          return startServer(options, attempt + 1)
        throw new Error(`server exited with ${child.exitCode} before it was ready:\n${err}${out}`)
      }
      try {
        const ready = await request('/health/ready', { token: null })
        // Answered by our child, not by another test's server on the same port.
        if (ready.status === 200 && holdsPort(child.pid, port)) break
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await server.kill()
        throw new Error(`server not ready within the deadline:\n${err}${out}`)
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return server
}

/** Runs the server with an environment that must make it refuse to start; returns exit code and stderr. */
export async function startExpectingFailure(
  env: Record<string, string | undefined>,
  timeoutMs = 15_000,
  where: Pick<StartOptions, 'main' | 'cwd'> = {},
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const server = await startServer({ env, waitReady: false, ...where })
  const timer = setTimeout(() => void server.kill(), timeoutMs)
  const code = await server.exited
  clearTimeout(timer)
  return { code, stderr: server.stderr(), stdout: server.stdout() }
}

/** The spec's error envelope, asserted shape. */
export interface ErrorBody {
  ok: false
  error: { code: string; message: string }
  correlation_id?: string
}
