/**
 * Child processes of the TAXII e2e test: the test TAXII server (`server.mjs`) and the built connector
 * (`connectors/taxii/dist/main.js`), each with its output captured and its JSON log lines parsed.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { repoRoot, trackChild } from '../harness.js'

export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1'
export const taxiiServerMain = join(repoRoot, 'e2e', 'src', 'taxii-server', 'server.mjs')
export const connectorMain = join(repoRoot, 'connectors', 'taxii', 'dist', 'main.js')

export interface LogLine {
  event: string
  level: string
  [field: string]: unknown
}

interface Captured {
  process: ChildProcess
  exited: Promise<number | null>
  stdout(): string
  stderr(): string
  /** Resolves with the first stdout JSON line `match` accepts (already written ones included). */
  waitFor(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>
  /** Every JSON line written to stdout so far. */
  lines(): LogLine[]
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

function capture(child: ChildProcess, label: string): Captured {
  let out = ''
  let err = ''
  const parsed: LogLine[] = []
  const waiters = new Set<() => void>()
  let partial = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    out += text
    const lines = (partial + text).split('\n')
    partial = lines.pop() ?? ''
    for (const line of lines) {
      try {
        parsed.push(JSON.parse(line) as LogLine)
      } catch {
        // not a log line
      }
    }
    for (const wake of waiters) wake()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  exited.then(() => {
    for (const wake of waiters) wake()
  })
  const running = () => child.exitCode === null && child.signalCode === null
  return {
    process: child,
    exited,
    stdout: () => out,
    stderr: () => err,
    lines: () => [...parsed],
    waitFor(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = parsed.find(match)
          if (hit !== undefined) return done(() => resolve(hit))
          if (!running())
            return done(() => reject(new Error(`${label} exited (${child.exitCode}):\n${err}${out}`)))
        }
        const timer = setTimeout(
          () =>
            done(() =>
              reject(new Error(`${label}: awaited log line not seen in ${timeoutMs} ms:\n${err}${out}`)),
            ),
          timeoutMs,
        )
        const done = (finish: () => void) => {
          clearTimeout(timer)
          waiters.delete(check)
          finish()
        }
        waiters.add(check)
        check()
      })
    },
    async stop(signal = 'SIGTERM') {
      if (running()) child.kill(signal)
      return exited
    },
  }
}

export interface TaxiiServer extends Captured {
  port: number
  url: string
  /** GET a TAXII path (relative to the server) with the TAXII Accept header unless `accept` says otherwise. */
  get(path: string, accept?: string | null): Promise<Response>
  faults(settings: {
    fail_next?: number
    fail_status?: number
    retry_after?: number
    delay_ms?: number
  }): Promise<void>
  requests(): Promise<
    { path: string; query: Record<string, string>; accept: string | null; status: number }[]
  >
}

export async function startTaxiiServer(env: Record<string, string>): Promise<TaxiiServer> {
  const child = trackChild(
    spawn(process.execPath, [taxiiServerMain], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
  const captured = capture(child, 'TAXII server')
  const { port } = (await captured.waitFor((line) => line.event === 'listening', 20_000)) as LogLine & {
    port: number
  }
  const url = `http://127.0.0.1:${port}`
  return {
    ...captured,
    port,
    url,
    get: (path, accept = TAXII_MEDIA_TYPE) =>
      fetch(`${url}${path}`, accept === null ? {} : { headers: { accept } }),
    async faults(settings) {
      const res = await fetch(`${url}/__control/faults`, { method: 'POST', body: JSON.stringify(settings) })
      await res.body?.cancel()
    },
    async requests() {
      const res = await fetch(`${url}/__control/requests`)
      return ((await res.json()) as { requests: Awaited<ReturnType<TaxiiServer['requests']>> }).requests
    },
  }
}

export type Connector = Captured

/** Starts the connector with only the given environment (plus PATH and HOME). */
export function startConnector(env: Record<string, string>, args: string[] = []): Connector {
  const child = trackChild(
    spawn(process.execPath, [connectorMain, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )
  return capture(child, 'connector')
}
