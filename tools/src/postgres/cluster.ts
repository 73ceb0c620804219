import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A throwaway PostgreSQL cluster for a test file or a benchmark: initdb in a temporary directory, started by pg_ctl on a
 * free loopback port with its unix socket inside that directory, as an unprivileged user (PostgreSQL
 * refuses to run as root: under root the commands run as `nobody` through runuser).
 */
export interface PostgresCluster {
  url: string
  port: number
  dir: string
  /** pg_ctl stop (fast: sessions end at once), then start again on the same port. */
  /** Creates a database and returns its URL. */
  createDatabase(name: string): string
  restart(): void
  stop(): void
  start(): void
  /** Stops the server and removes the directory; safe to call twice. */
  destroy(): void
}

/** The directory holding initdb and pg_ctl, or null when PostgreSQL is not installed. */
export function postgresBin(): string | null {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? null : join(root, versions[0], 'bin')
}

/**
 * Whether the PostgreSQL tests run here: they skip (with the reason) only when the binaries are absent
 * and this is not CI; in CI a missing PostgreSQL is a failure, since `.ci/run` installs it.
 */
export function postgresAvailability(): { run: boolean; reason: string } {
  if (postgresBin() !== null) return { run: true, reason: '' }
  if (process.env.CI)
    throw new Error(
      'PostgreSQL binaries are missing under /usr/lib/postgresql (CI installs the postgresql package)',
    )
  return {
    run: false,
    reason: 'PostgreSQL is not installed (apt-get install postgresql); PostgreSQL tests skipped',
  }
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0

function run(bin: string, args: string[]): void {
  const command = asRoot ? 'runuser' : bin
  const full = asRoot ? ['-u', 'nobody', '--', bin, ...args] : args
  const result = spawnSync(command, full, { encoding: 'utf8', cwd: '/' })
  if (result.status !== 0) {
    throw new Error(`${bin} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.stdout}`)
  }
}

/** Starts a cluster on `port` (a free loopback port the caller picked). */
export function startPostgres(port: number): PostgresCluster {
  const bin = postgresBin()
  if (bin === null) throw new Error('PostgreSQL is not installed')
  const dir = mkdtempSync(join(tmpdir(), 'service-pg-'))
  const data = join(dir, 'data')
  if (asRoot) {
    // nobody owns the cluster: the directory must be theirs (and reachable).
    chmodSync(dir, 0o755)
    chownSync(dir, 65534, 65534)
  }
  run(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`
  const start = () =>
    run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-o', options, '-w', 'start'])
  const stop = () => run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'])
  start()
  let destroyed = false
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start,
    stop,
    createDatabase: (name: string) => {
      const created = spawnSync(
        join(bin, 'createdb'),
        ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name],
        {
          encoding: 'utf8',
        },
      )
      if (created.status !== 0) throw new Error(`createdb ${name} failed: ${created.stderr}`)
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    restart: () => {
      stop()
      start()
    },
    destroy: () => {
      if (destroyed) return
      destroyed = true
      try {
        execFileSync(
          asRoot ? 'runuser' : join(bin, 'pg_ctl'),
          [
            ...(asRoot ? ['-u', 'nobody', '--', join(bin, 'pg_ctl')] : []),
            '-D',
            data,
            '-m',
            'immediate',
            '-w',
            'stop',
          ],
          { stdio: 'ignore', cwd: '/' },
        )
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
