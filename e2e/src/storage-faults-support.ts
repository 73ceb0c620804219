import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect } from 'vitest'
import type { RunningServer } from './harness.js'

const run = promisify(execFile)
const FIU_LIBS = ['/usr/lib/fiu/fiu_run_preload.so', '/usr/lib/fiu/fiu_posix_preload.so']
/** libfaketime lives under the multiarch directory of the machine (x86_64-linux-gnu, aarch64-linux-gnu, …). */
const FAKETIME_LIB =
  readdirSync('/usr/lib', { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join('/usr/lib', e.name, 'faketime', 'libfaketime.so.1'))
    .find((path) => existsSync(path)) ?? ''
const onPath = (tool: string) =>
  (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, tool)))

/**
 * Whether a tool the fault tests need is here. Outside CI a missing tool skips them with a message; in CI
 * (CI=true, where .ci/run installs fiu-utils and faketime) it is a failure.
 */
export function toolPresent(name: string, present: boolean): boolean {
  if (present) return true
  if (process.env.CI === 'true') throw new Error(`${name} is missing: .ci/run installs it (apt-get)`)
  console.warn(`storage fault tests skipped: ${name} is not installed (apt-get install fiu-utils faketime)`)
  return false
}

export const fiuPresent = () => FIU_LIBS.every((lib) => existsSync(lib)) && onPath('fiu-ctrl')
export const faketimePresent = () => FAKETIME_LIB !== ''

/** A libfiu-controlled process: the environment to start it with and the remote control to drive it. */
export function fiuControl() {
  const prefix = join(mkdtempSync(join(tmpdir(), 'fiu-')), 'ctrl')
  return {
    env: { LD_PRELOAD: FIU_LIBS.join(' '), FIU_CTRL_FIFO: prefix, FIU_ENABLE: '' },
    /** Runs libfiu remote-control commands in the live process, e.g. `enable name=posix/io/sync/fdatasync,failinfo=5`. */
    async send(server: RunningServer, ...commands: string[]) {
      const args = ['-f', prefix, ...commands.flatMap((c) => ['-c', c]), String(server.process.pid)]
      const { stderr } = await run('fiu-ctrl', args)
      if (stderr.trim() !== '') throw new Error(`fiu-ctrl: ${stderr}`)
    },
  }
}

/** libfaketime with time read from a file on every call, so a test moves the clock of the running process. */
export function faketimeControl(file: string) {
  return {
    LD_PRELOAD: FAKETIME_LIB,
    FAKETIME_TIMESTAMP_FILE: file,
    FAKETIME_NO_CACHE: '1',
    // Timers and performance.now() stay on the real monotonic clock; only the wall clock jumps.
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  }
}

export const persistentEnv = (dir: string, extra: Record<string, string> = {}) => ({
  SERVICE_STORAGE_MODE: 'persistent',
  SERVICE_STORAGE_DIR: dir,
  SERVICE_LOG_LEVEL: 'warn',
  ...extra,
})

interface CypherEnvelope {
  ok: boolean
  result?: { status: string; data: { columns: string[]; rows: unknown[][] } | null }
  error?: { code: string; message: string }
}

/** Each write is two nodes and a relationship in one query, so a half-applied write would show. */
const PAIR = 'CREATE (a:Item {k: $k, part: 1})-[:PAIR {k: $k}]->(b:Item {k: $k, part: 2, pad: $pad})'

/** Writes the pair `k`; resolves with the HTTP status and the error code when refused. */
export async function writePair(server: RunningServer, k: string, pad = '') {
  const res = await server.request<CypherEnvelope>('/v1/cypher/write', {
    body: { query: PAIR, params: { k, pad } },
  })
  const acknowledged = res.status === 200 && res.json.result?.status === 'Success'
  return {
    acknowledged,
    status: res.status,
    code: res.json.error?.code ?? null,
    message: res.json.error?.message,
  }
}

export async function countItems(server: RunningServer): Promise<number> {
  const res = await server.request<CypherEnvelope>('/v1/cypher/read', {
    body: { query: 'MATCH (n:Item) RETURN count(n) AS c' },
  })
  expect(res.status).toBe(200)
  return res.json.result?.data?.rows[0]?.[0] as number
}

/**
 * The digest of the pairs: per key, its nodes and relationships. Every acknowledged key must be whole
 * (2 nodes, 1 relationship); a refused one absent or whole, never half-visible and never twice.
 */
export async function checkDigest(server: RunningServer, acknowledged: Set<string>, refused: Set<string>) {
  const nodes = await server.request<CypherEnvelope>('/v1/cypher/read', {
    body: { query: 'MATCH (n:Item) RETURN n.k AS k, count(n) AS c' },
  })
  const rels = await server.request<CypherEnvelope>('/v1/cypher/read', {
    body: { query: 'MATCH ()-[r:PAIR]->() RETURN r.k AS k, count(r) AS c' },
  })
  const digest = new Map<string, [number, number]>()
  for (const [k, c] of nodes.json.result?.data?.rows ?? []) digest.set(k as string, [c as number, 0])
  for (const [k, c] of rels.json.result?.data?.rows ?? []) {
    const d = digest.get(k as string) ?? [0, 0]
    digest.set(k as string, [d[0], c as number])
  }
  for (const k of acknowledged) expect({ k, d: digest.get(k) }).toEqual({ k, d: [2, 1] })
  const foundRefused: string[] = []
  for (const k of refused) {
    const d = digest.get(k)
    if (d === undefined) continue
    expect({ k, d }).toEqual({ k, d: [2, 1] })
    foundRefused.push(k)
  }
  for (const [k, d] of digest) expect({ k, d }).toEqual({ k, d: [2, 1] })
  return { foundRefused }
}

/** Polls until `check` holds, up to `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The status of /health/ready: 200 ready, 503 not (writes suspended among the reasons). */
export const readyStatus = async (server: RunningServer) =>
  (await server.request('/health/ready', { token: null })).status

/** A real full disk: a tmpfs of `size` (e.g. `4m`) at a fresh mountpoint, or null without root (mounting needs it, as CI runs). */
export function mountSmallTmpfs(size: string, prefix: string): string | null {
  if (process.getuid?.() !== 0) return null
  const mountpoint = mkdtempSync(join(tmpdir(), prefix))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountpoint], { stdio: 'pipe' })
    return mountpoint
  } catch {
    rmSync(mountpoint, { recursive: true, force: true })
    return null
  }
}
