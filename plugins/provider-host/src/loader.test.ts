import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ProviderStartupError } from './errors.js'
import { loadProviderSources, loadProviders } from './loader.js'

let work: string
let root: string
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'provider-host-loader-'))
  root = join(work, 'providers')
  await mkdir(root)
})
afterEach(async () => {
  await rm(work, { recursive: true, force: true })
})

const sha = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex')

async function withManifest(providers: Record<string, unknown>[]) {
  const manifestFile = join(work, 'manifest.json')
  await writeFile(manifestFile, JSON.stringify({ schema_version: '1', providers }))
  return loadProviders({ dir: root, manifestFile })
}

const entry = (overrides: Record<string, unknown>) => ({
  domain: 'medical',
  library: 'libmedical.so',
  sha256: 'a'.repeat(64),
  required: true,
  capabilities: [{ name: 'node.validate', version: '1' }],
  ...overrides,
})

const startupError = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ProviderStartupError)
  return (error as Error).message
}

describe('loadProviders (before any library is opened)', () => {
  it('skips an optional provider whose library is missing, and counts it as configured', async () => {
    const registry = await withManifest([entry({ required: false })])
    expect(registry.list()).toEqual([])
    expect(registry.figures()).toEqual({ configured: 1, ready: 0, all_required_ready: true })
  })

  it('refuses a required provider whose library is missing', async () => {
    const message = await startupError(withManifest([entry({})]))
    expect(message).toBe(
      'required medical domain provider (libmedical.so): the library file does not exist under the provider directory',
    )
  })

  it('refuses a digest mismatch, naming both digests', async () => {
    await writeFile(join(root, 'libmedical.so'), 'not the pinned bytes')
    const message = await startupError(withManifest([entry({ required: false })]))
    expect(message).toContain('optional medical domain provider (libmedical.so): SHA-256 digest mismatch')
    expect(message).toContain(sha('not the pinned bytes'))
  })

  it('refuses a symlink that escapes the provider directory, even with the right digest', async () => {
    const outside = join(work, 'outside.so')
    await writeFile(outside, 'escaping library')
    await symlink(outside, join(root, 'libmedical.so'))
    const message = await startupError(withManifest([entry({ sha256: sha('escaping library') })]))
    expect(message).toContain('resolves outside the provider directory')
  })

  it('refuses an escaping symlinked directory', async () => {
    await mkdir(join(work, 'elsewhere'))
    await writeFile(join(work, 'elsewhere', 'lib.so'), 'x')
    await symlink(join(work, 'elsewhere'), join(root, 'sub'))
    const message = await startupError(withManifest([entry({ library: 'sub/lib.so', sha256: sha('x') })]))
    expect(message).toContain('resolves outside the provider directory')
  })

  it('follows a symlink that stays inside the root', async () => {
    await mkdir(join(root, 'real'))
    await writeFile(join(root, 'real', 'lib.so'), 'inside')
    await symlink(join(root, 'real', 'lib.so'), join(root, 'libmedical.so'))
    // It passes confinement and the digest, then fails only at loading (not a real library).
    const message = await startupError(withManifest([entry({ sha256: sha('inside') })]))
    expect(message).toContain('the library cannot be loaded')
  })

  it('refuses a directory in place of the library', async () => {
    await mkdir(join(root, 'libmedical.so'))
    expect(await startupError(withManifest([entry({})]))).toContain('not a regular file')
  })

  it('refuses absolute and parent paths in the manifest itself', async () => {
    expect(await startupError(withManifest([entry({ library: join(work, 'x.so') })]))).toMatch(
      /invalid provider manifest .*library is absolute/,
    )
    expect(await startupError(withManifest([entry({ library: '../outside.so' })]))).toMatch(
      /'\.\.' component/,
    )
  })

  it('stops at a fault of an optional provider whose file exists', async () => {
    await writeFile(join(root, 'libmedical.so'), 'bytes')
    const message = await startupError(withManifest([entry({ required: false, sha256: sha('bytes') })]))
    expect(message).toContain(
      'optional medical domain provider (libmedical.so): the library cannot be loaded',
    )
  })

  it('refuses a missing manifest or provider directory', async () => {
    expect(await startupError(loadProviders({ dir: root, manifestFile: join(work, 'none.json') }))).toMatch(
      /cannot read the provider manifest .*none\.json \(ENOENT\)/,
    )
    await writeFile(join(work, 'm.json'), JSON.stringify({ schema_version: '1', providers: [] }))
    expect(
      await startupError(loadProviders({ dir: join(work, 'nope'), manifestFile: join(work, 'm.json') })),
    ).toMatch(/provider directory .* cannot be used \(ENOENT\)/)
  })
})

describe("loadProviderSources (the deployment manifest plus the packs' own)", () => {
  const manifest = async (name: string, providers: Record<string, unknown>[]) => {
    const manifestFile = join(work, name)
    await writeFile(manifestFile, JSON.stringify({ schema_version: '1', providers }))
    return manifestFile
  }

  it('counts every source and names the pack in its errors', async () => {
    const deployment = await manifest('deployment.json', [entry({ required: false })])
    const pack = await manifest('pack.json', [entry({ domain: 'research', library: 'libresearch.so' })])
    const message = await startupError(
      loadProviderSources([
        { dir: root, manifestFile: deployment },
        { dir: root, manifestFile: pack, origin: 'pack @acme/service-pack-research', domain: 'research' },
      ]),
    )
    expect(message).toBe(
      'pack @acme/service-pack-research: required research domain provider (libresearch.so): the library file does not exist under the provider directory',
    )
  })

  it('refuses a pack manifest that lists another domain, or more than its own', async () => {
    const other = await manifest('other.json', [entry({})])
    expect(
      await startupError(
        loadProviderSources([{ dir: root, manifestFile: other, origin: 'pack p', domain: 'research' }]),
      ),
    ).toMatch(
      /^pack p: its provider manifest .* must list exactly the research provider \(it lists medical\)$/,
    )
    const two = await manifest('two.json', [entry({}), entry({ domain: 'research' })])
    expect(
      await startupError(
        loadProviderSources([{ dir: root, manifestFile: two, origin: 'pack p', domain: 'medical' }]),
      ),
    ).toMatch(/it lists medical, research/)
  })

  it('refuses a domain supplied by two sources before loading anything', async () => {
    const deployment = await manifest('deployment.json', [entry({})])
    const pack = await manifest('pack.json', [entry({})])
    const message = await startupError(
      loadProviderSources([
        { dir: root, manifestFile: deployment },
        { dir: root, manifestFile: pack, origin: 'pack @acme/m', domain: 'medical' },
      ]),
    )
    // The first source fails on its missing library before the second is read; swap them to see the clash.
    expect(message).toMatch(/the library file does not exist/)
    const clash = await startupError(
      loadProviderSources([
        { dir: root, manifestFile: await manifest('optional.json', [entry({ required: false })]) },
        { dir: root, manifestFile: pack, origin: 'pack @acme/m', domain: 'medical' },
      ]),
    )
    expect(clash).toBe(
      `pack @acme/m and ${join(work, 'optional.json')} both supply a medical provider; one provider per domain`,
    )
  })
})
