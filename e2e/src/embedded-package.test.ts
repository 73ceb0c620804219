/**
 * `@service/core` outside the repository: `pnpm pack` gives a tarball that a fresh project installs with npm
 * and runs the README's embedded example from, verbatim. Its only dependency is `typebox` (npm's cache or the
 * registry provides it); no Gherkin parser or other dev tool comes along.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot } from './harness.js'

const exec = promisify(execFile)
const rootPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  packageManager: string
}

/** The first ```ts block under "## Embedded use" in the README. */
function readmeExample(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Embedded use'))
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  if (code === undefined) throw new Error('README has no embedded example')
  return code
}

describe('the embedded library as a package', () => {
  const dir = mkdtempSync(join(tmpdir(), 'embedded-'))
  let tarball = ''
  beforeAll(async () => {
    // The pinned pnpm, through npx as the root scripts run it.
    await exec('npx', ['--yes', rootPackage.packageManager, 'pack', '--pack-destination', dir], {
      cwd: join(repoRoot, 'core'),
    })
    tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz')) ?? 'missing.tgz')
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'embed-check', private: true, type: 'module' }),
    )
    await exec('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: dir })
  }, 120_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  // undici is the projector's HTTP pool, tinypool the worker pool for checkpoints, temporal-polyfill the
  // calendar and time-zone rules of Cypher's temporal values (with its two own packages), csv-parse the reader of
  // LOAD CSV, papaparse the offline importer's (about twice as fast on its files); `pg` is an optional peer.
  it('installs as a public package whose only dependencies are csv-parse, papaparse, temporal-polyfill, tinypool, typebox and undici', () => {
    const manifest = JSON.parse(
      readFileSync(join(dir, 'node_modules', '@service', 'core', 'package.json'), 'utf8'),
    ) as Record<string, unknown>
    expect(manifest.private).toBeUndefined()
    expect(Object.keys(manifest.dependencies as object)).toEqual([
      'csv-parse',
      'papaparse',
      'temporal-polyfill',
      'tinypool',
      'typebox',
      'undici',
    ])
    expect(manifest.peerDependenciesMeta).toEqual({ pg: { optional: true } })
    expect(readdirSync(join(dir, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([
      '@service',
      'csv-parse',
      'papaparse',
      'temporal-polyfill',
      'temporal-spec',
      'temporal-utils',
      'tinypool',
      'typebox',
      'undici',
    ])
  })

  it("runs the README's embedded example as written", async () => {
    writeFileSync(join(dir, 'example.mjs'), readmeExample())
    const { stdout } = await exec(process.execPath, ['example.mjs'], { cwd: dir })
    expect(stdout).toContain("rows: [ [ 'Emotet' ] ]")
    expect(stdout).toContain('identity--3f1e6a3c-1d2b-4c5d-8e9f-0a1b2c3d4e5f')
    expect(stdout).toContain('committed_version: 1')
    expect(stdout).toContain('objective_lexical_match')
    expect(readdirSync(join(dir, 'data')).length).toBeGreaterThan(0)
  }, 60_000)
})
