/**
 * A third-party pack, as its author and a deployment would make it, outside this repository: the SDK's
 * `create-pack` writes it, `pnpm install` builds its provider (the install script), its own tests pass
 * against the fake host, `pnpm pack` packs it; a fresh project installs the packed server and the pack,
 * enables it by package name, and the server validates through the pack's provider. Then the installed
 * library is changed by one byte and the server refuses to start.
 *
 * Our packages come from local tarballs (`pnpm pack`), never from a registry; the third-party ones come
 * from pnpm's store (`--prefer-offline`: the registry is asked only for metadata the store lacks).
 */
import { execFile } from 'node:child_process'
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, repoRoot, startExpectingFailure, startServer } from './harness.js'

const exec = promisify(execFile)
const { packageManager } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  packageManager: string
}
const PACK = '@acme/service-pack-research'

/** The pinned pnpm, through npx as the root scripts run it; CI=true would otherwise demand a lockfile. */
const pnpm = (args: string[], cwd: string) =>
  exec('npx', ['--yes', packageManager, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 })

/** pnpm-workspace.yaml that points every @service package at its tarball and allows the pack's build. */
function workspaceYaml(tarballs: string, allowBuilds: string[] = []): string {
  const overrides = readdirSync(tarballs)
    .map((file) => /^service-(.+)-\d+\.\d+\.\d+\.tgz$/.exec(file))
    .filter((match) => match !== null)
    .map((match) => `  "@service/${match[1]}": "file:${join(tarballs, match[0])}"`)
  const builds = allowBuilds.map((name) => `  - "${name}"`)
  return [
    'overrides:',
    ...overrides,
    ...(builds.length > 0 ? ['onlyBuiltDependencies:', ...builds] : []),
    '',
  ].join('\n')
}

describe('a third-party pack made from the template', () => {
  const root = mkdtempSync(join(tmpdir(), 'third-party-pack-'))
  const tarballs = join(root, 'tarballs')
  const packDir = join(root, 'acme-research')
  const deployment = join(root, 'deployment')
  let packTest = ''
  let library = ''
  let server: RunningServer | undefined

  beforeAll(async () => {
    expect(relative(repoRoot, root).startsWith('..') || isAbsolute(relative(repoRoot, root))).toBe(true)
    mkdirSync(tarballs)
    // The server with every workspace package it needs, and the SDK.
    await pnpm(
      [
        '-r',
        '--filter',
        '@service/host...',
        '--filter',
        '@service/provider-sdk',
        'pack',
        '--pack-destination',
        tarballs,
      ],
      repoRoot,
    )
    const sdk = join(tarballs, readdirSync(tarballs).find((f) => f.startsWith('service-provider-sdk-')) ?? '')

    // The author: template, install (builds the provider), tests, pack.
    await exec(
      'npx',
      ['--yes', '--package', sdk, 'create-pack', packDir, '--name', PACK, '--domain', 'research'],
      {
        cwd: root,
      },
    )
    writeFileSync(join(packDir, 'pnpm-workspace.yaml'), workspaceYaml(tarballs))
    await pnpm(['install', '--prefer-offline', '--no-frozen-lockfile'], packDir)
    const tested = await pnpm(['test'], packDir)
    packTest = `${tested.stdout}\n${tested.stderr}`
    await pnpm(['pack', '--pack-destination', root], packDir)
    // Relative: pnpm names a tarball dependency by the spec as written, and the build allowance must match it.
    const packSpec = `file:../${readdirSync(root).find((f) => f.startsWith('acme-service-pack-research-'))}`

    // The deployment: a fresh project with the packed server and the pack, built where it is installed.
    mkdirSync(deployment)
    writeFileSync(
      join(deployment, 'package.json'),
      JSON.stringify({
        name: 'deployment',
        private: true,
        type: 'module',
        dependencies: {
          '@service/host': `file:${join(tarballs, 'service-host-0.3.1.tgz')}`,
          [PACK]: packSpec,
        },
      }),
    )
    // A registry pack is allowed by its name; a tarball dependency by its name and file spec.
    writeFileSync(
      join(deployment, 'pnpm-workspace.yaml'),
      workspaceYaml(tarballs, [PACK, `${PACK}@${packSpec}`]),
    )
    await pnpm(['install', '--prefer-offline', '--no-frozen-lockfile'], deployment)
    library = join(
      deployment,
      'node_modules',
      ...PACK.split('/'),
      'build',
      'provider',
      'libservice_research_provider.so',
    )
  }, 600_000)

  afterAll(async () => {
    await server?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  const main = () => join(deployment, 'node_modules', '@service', 'host', 'dist', 'main.js')

  it('passes its own tests against the fake host', () => {
    expect(packTest).toMatch(/# pass 3\b/)
    expect(packTest).toMatch(/# fail 0\b/)
  })

  it('is enabled by its package name in the deployment and validates through its provider', async () => {
    server = await startServer({
      main: main(),
      cwd: deployment,
      env: { SERVICE_ENABLED_PACKS: `cti,fimi,crisis,medical,${PACK}` },
      timeoutMs: 60_000,
    })
    const health = await server.request<{ domain_providers: { configured: number; ready: number } }>(
      '/health',
      {
        token: null,
      },
    )
    expect(health.json.domain_providers).toEqual({ configured: 1, ready: 1 })
    const accepted = await server.request<{ ok: boolean; result: { status: string; issues: unknown[] } }>(
      '/v1/domains/research/validate',
      { body: { payload: { id: 'note-1', labels: ['Note'], name: 'first note' } } },
    )
    expect(accepted.status).toBe(200)
    expect(accepted.json.result).toMatchObject({ status: 'accepted', issues: [] })
    const rejected = await server.request<{ result: { status: string; issues: { code: string }[] } }>(
      '/v1/domains/research/validate',
      { body: { payload: { id: 'note-2', labels: ['Note'] } } },
    )
    expect(rejected.json.result.status).toBe('rejected')
    expect(rejected.json.result.issues.map((issue) => issue.code)).toEqual(['ACME_RESEARCH_NAME_REQUIRED'])
    expect(server.stdout()).toContain(
      `pack ${PACK}: research provider acme.service-pack-research 0.1.0 loaded`,
    )
    expect(await server.stop()).toBe(0)
  })

  it('is refused at start-up when its library no longer matches the digest in its manifest', async () => {
    appendFileSync(library, Buffer.from([0]))
    const { code, stderr } = await startExpectingFailure({ SERVICE_ENABLED_PACKS: PACK }, 60_000, {
      main: main(),
      cwd: deployment,
    })
    expect(code).toBe(3)
    expect(stderr).toMatch(
      new RegExp(
        `pack ${PACK}: required research domain provider \\(libservice_research_provider\\.so\\): SHA-256 digest mismatch \\(manifest [0-9a-f]{64}, file [0-9a-f]{64}\\)`,
      ),
    )
  })
})
