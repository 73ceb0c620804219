import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadPacks } from './pack-packages.js'
import { definePack, PackError, packDescriptorFromPackageJson, parseEnabledPacks } from './packs.js'

const vocabulary = { nodes: ['ThreatActor', 'Malware'], relationships: ['Uses'] }

describe('definePack', () => {
  it('fills the defaults and freezes the result', () => {
    const pack = definePack({ domain: 'cti', vocabulary })
    expect(pack).toEqual({
      domain: 'cti',
      module: 'cti',
      enterprise: true,
      capabilities: [{ name: 'node.validate', version: '1' }],
      vocabulary,
    })
    expect(Object.isFrozen(pack)).toBe(true)
    expect(Object.isFrozen(pack.vocabulary.nodes)).toBe(true)
    expect(definePack({ domain: 'medical', vocabulary }).enterprise).toBe(false)
  })

  it.each([
    ['an unknown domain', { domain: 'finance', vocabulary }, /not one of/],
    [
      'a gate policy other than the host enforces',
      { domain: 'medical', enterprise: true, vocabulary },
      /gates medical as open/,
    ],
    [
      'an enterprise domain declared open',
      { domain: 'cti', enterprise: false, vocabulary },
      /gates cti as enterprise/,
    ],
    ['a bad module name', { domain: 'cti', module: 'c t i', vocabulary }, /not a module name/],
    ['no vocabulary', { domain: 'cti' }, /no vocabulary/],
    [
      'a label with a space',
      { domain: 'cti', vocabulary: { nodes: ['Threat Actor'], relationships: [] } },
      /identifiers/,
    ],
    ['a repeated label', { domain: 'cti', vocabulary: { nodes: ['A', 'A'], relationships: [] } }, /twice/],
    [
      'a malformed capability',
      { domain: 'cti', capabilities: [{ name: 'node.validate' }], vocabulary },
      /missing 'version'/,
    ],
  ])('refuses %s', (_what, definition, message) => {
    expect(() => definePack(definition as never)).toThrow(message)
  })
})

describe('packDescriptorFromPackageJson', () => {
  it('reads the service key', () => {
    const pack = packDescriptorFromPackageJson({
      name: '@service/pack-fimi',
      service: {
        domain: 'fimi',
        module: 'FIMI',
        enterprise: true,
        capabilities: [{ name: 'node.validate', version: '1' }],
        vocabulary,
      },
    })
    expect(pack.module).toBe('fimi')
  })

  it('names the package when the key is missing or wrong', () => {
    expect(() => packDescriptorFromPackageJson({ name: '@service/pack-x' })).toThrow(
      /@service\/pack-x has no "service"/,
    )
    expect(() =>
      packDescriptorFromPackageJson({ name: '@service/pack-x', service: { domain: 'x', vocabulary } }),
    ).toThrow(/@service\/pack-x: pack domain 'x'/)
  })
})

describe('parseEnabledPacks', () => {
  it('defaults to the five built-in packs, trims, lower-cases short names and dedupes', () => {
    expect(parseEnabledPacks(undefined)).toEqual(['cti', 'fimi', 'crisis', 'medical', 'research'])
    expect(parseEnabledPacks(' CTI , medical,cti,,')).toEqual(['cti', 'medical'])
    expect(parseEnabledPacks('')).toEqual([])
  })

  it('accepts pack package names (scoped, or service-pack-*) and refuses other words', () => {
    expect(parseEnabledPacks('cti, @acme/service-pack-research ,service-pack-x')).toEqual([
      'cti',
      '@acme/service-pack-research',
      'service-pack-x',
    ])
    expect(() => parseEnabledPacks('cti,finance')).toThrow(/unknown pack name\(s\) finance/)
    expect(() => parseEnabledPacks('@Acme/Pack')).toThrow(PackError)
    expect(() => parseEnabledPacks('@acme/')).toThrow(PackError)
    expect(() => parseEnabledPacks(`@acme/${'x'.repeat(210)}`)).toThrow(PackError)
  })
})

describe('loadPacks', () => {
  const writePackage = async (root: string, name: string, json: object) => {
    const dir = join(root, 'node_modules', ...name.split('/'))
    await mkdir(dir, { recursive: true })
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name, ...json }))
    return dir
  }

  it('resolves short names to @service/pack-<name> and package names as Node does, in order', async () => {
    const root = await mkdtemp(join(tmpdir(), 'provider-host-packs-'))
    try {
      const deployment = join(root, 'app')
      await mkdir(join(deployment, 'src'), { recursive: true })
      await writePackage(root, '@service/pack-crisis', { service: { domain: 'crisis', vocabulary } })
      const acme = await writePackage(deployment, '@acme/service-pack-research', {
        service: { domain: 'research', vocabulary },
        // exports that hide package.json do not hide the pack
        exports: { '.': './index.js' },
      })
      await mkdir(join(acme, 'build', 'provider'), { recursive: true })
      await writeFile(join(acme, 'build', 'provider', 'manifest.json'), '{}')
      // Found from a folder below the deployment too: node_modules are looked up parent by parent.
      const packs = await loadPacks(['@acme/service-pack-research', 'crisis'], {
        from: [join(deployment, 'src')],
      })
      expect(packs.map((p) => [p.name, p.descriptor.domain, p.provider?.manifestFile ?? null])).toEqual([
        ['@acme/service-pack-research', 'research', join(acme, 'build', 'provider', 'manifest.json')],
        ['crisis', 'crisis', null],
      ])
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })

  it('refuses what is missing, misnamed, without its provider or a second pack for a domain', async () => {
    const root = await mkdtemp(join(tmpdir(), 'provider-host-packs-'))
    try {
      const from = { from: [root, join(root, 'elsewhere')] }
      await expect(loadPacks(['cti'], from)).rejects.toThrow(
        /the pack cti \(package @service\/pack-cti\) is not installed where the server looks/,
      )
      await writePackage(root, '@service/pack-crisis', { service: { domain: 'research', vocabulary } })
      await expect(loadPacks(['crisis'], from)).rejects.toThrow(/describes the research pack, not crisis/)
      const acme = await writePackage(root, '@acme/service-pack-research', {
        service: { domain: 'research', vocabulary },
      })
      await expect(loadPacks(['@acme/service-pack-research'], from)).rejects.toThrow(
        /has no built provider .*npm rebuild @acme\/service-pack-research/,
      )
      await mkdir(join(acme, 'build', 'provider'), { recursive: true })
      await writeFile(join(acme, 'build', 'provider', 'manifest.json'), '{}')
      await writePackage(root, '@service/pack-research', { service: { domain: 'research', vocabulary } })
      await expect(loadPacks(['research', '@acme/service-pack-research'], from)).rejects.toThrow(
        /research and @acme\/service-pack-research are both research packs/,
      )
      await writePackage(root, '@acme/service-pack-cti', {
        name: 'other',
        service: { domain: 'cti', vocabulary },
      })
      await expect(loadPacks(['@acme/service-pack-cti'], from)).rejects.toThrow(/is named other/)
      await writePackage(root, '@acme/service-pack-x', {
        service: { domain: 'cti', enterprise: false, vocabulary },
      })
      await expect(loadPacks(['@acme/service-pack-x'], from)).rejects.toThrow(
        /cannot regate|enterprise false/,
      )
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
