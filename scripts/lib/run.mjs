// Small process helpers for the root scripts. The only tool assumed is Node.js with npm: pnpm is run through
// npx at the version pinned in package.json, so a fresh machine needs no global install.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager // "pnpm@x.y.z"

export function run(command, args, options = {}) {
  const started = Date.now()
  process.stdout.write(`\n▶ ${command} ${args.join(' ')}\n`)
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...options.env },
  })
  if (result.status !== 0) {
    process.stderr.write(`✖ ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})\n`)
    process.exit(result.status ?? 1)
  }
  process.stdout.write(`✔ ${command} ${args[0] ?? ''} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`)
}

/** Runs pnpm: the one on PATH if it is the pinned version, else the pinned version through npx. */
export function pnpm(args, options) {
  const version = pinned.split('@')[1]
  const local = spawnSync('pnpm', ['--version'], { encoding: 'utf8' })
  if (local.status === 0 && local.stdout.trim() === version) return run('pnpm', args, options)
  return run('npx', ['--yes', pinned, ...args], options)
}

export const installed = () => existsSync(join(root, 'node_modules', '.modules.yaml'))

export function install() {
  pnpm(['install', ...(process.env.CI ? ['--frozen-lockfile'] : [])])
}

export function build() {
  pnpm(['run', '--recursive', '--if-present', 'build:native'])
  run(process.execPath, [join(root, 'packs', 'provider-sdk', 'scripts', 'write-manifest.mjs')])
  run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'tsconfig.json'])
  // Browser bundles (the explorer page) after tsc, which has type-checked their sources.
  pnpm(['run', '--recursive', '--if-present', 'build:web'])
}
