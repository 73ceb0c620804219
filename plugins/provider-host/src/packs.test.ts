import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  definePack,
  loadPacks,
  PackError,
  packDescriptorFromPackageJson,
  parseEnabledPacks,
} from './packs.js'

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

describe('parseEnabledPacks and loadPacks', () => {
  it('defaults to all five, trims, lower-cases and dedupes', () => {
    expect(parseEnabledPacks(undefined)).toEqual(['cti', 'fimi', 'crisis', 'medical', 'research'])
    expect(parseEnabledPacks(' CTI , medical,cti,,')).toEqual(['cti', 'medical'])
    expect(parseEnabledPacks('')).toEqual([])
    expect(() => parseEnabledPacks('cti,finance')).toThrow(PackError)
  })

  it('reads packs/<name>/package.json in order', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'provider-host-packs-'))
    try {
      for (const domain of ['crisis', 'research']) {
        await mkdir(join(repo, 'packs', domain), { recursive: true })
        await writeFile(
          join(repo, 'packs', domain, 'package.json'),
          JSON.stringify({ name: `@service/pack-${domain}`, service: { domain, vocabulary } }),
        )
      }
      expect((await loadPacks(['research', 'crisis'], repo)).map((p) => p.domain)).toEqual([
        'research',
        'crisis',
      ])
      await expect(loadPacks(['cti'], repo)).rejects.toThrow(/the cti pack cannot be read/)
      await writeFile(
        join(repo, 'packs', 'crisis', 'package.json'),
        JSON.stringify({ name: 'x', service: { domain: 'research', vocabulary } }),
      )
      await expect(loadPacks(['crisis'], repo)).rejects.toThrow(/describes the research pack, not crisis/)
    } finally {
      await rm(repo, { recursive: true, force: true })
    }
  })
})
