import { describe, expect, it } from 'vitest'
import { libraryPathFault, parseManifest } from './manifest.js'

const SHA = 'a'.repeat(64)
const entry = (overrides: Record<string, unknown> = {}) => ({
  domain: 'cti',
  library: 'cti/libservice_cti.so',
  sha256: SHA,
  required: true,
  capabilities: [{ name: 'node.validate', version: '1' }],
  ...overrides,
})
const manifest = (providers: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ schema_version: '1', providers, ...extra })

describe('parseManifest', () => {
  it('reads a well-formed manifest in order', () => {
    const parsed = parseManifest(
      manifest([entry(), entry({ domain: 'medical', required: false, library: 'm.so' })]),
    )
    expect(parsed.providers.map((p) => p.domain)).toEqual(['cti', 'medical'])
    expect(parsed.providers[1]?.required).toBe(false)
  })

  it('accepts an empty provider list', () => {
    expect(parseManifest(manifest([])).providers).toEqual([])
  })

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['an array', '[]', /must be a JSON object/],
    ['an unknown top-level field', manifest([], { extra: 1 }), /unknown field 'extra'/],
    ['a missing providers list', JSON.stringify({ schema_version: '1' }), /missing 'providers'/],
    [
      'schema_version 2',
      JSON.stringify({ schema_version: '2', providers: [] }),
      /schema_version must be "1"/,
    ],
    ['schema_version as a number', JSON.stringify({ schema_version: 1, providers: [] }), /schema_version/],
    ['providers not an array', JSON.stringify({ schema_version: '1', providers: {} }), /must be an array/],
  ])('rejects %s', (_what, text, message) => {
    expect(() => parseManifest(text)).toThrow(message)
  })

  it.each([
    ['an unknown entry field', entry({ version: '1' }), /unknown field 'version'/],
    ['a missing sha256', (({ sha256: _s, ...rest }) => rest)(entry()), /missing 'sha256'/],
    ['an unknown domain', entry({ domain: 'finance' }), /not one of cti/],
    ['an upper-case domain', entry({ domain: 'CTI' }), /not one of cti/],
    ['a non-string library', entry({ library: 7 }), /library must be a string/],
    ['an absolute library path', entry({ library: '/usr/lib/libx.so' }), /is absolute/],
    ['a Windows drive path', entry({ library: 'C:/x.dll' }), /is absolute/],
    ['a .. component', entry({ library: 'cti/../../x.so' }), /'\.\.' component/],
    ['a . component', entry({ library: './x.so' }), /'\.' component/],
    ['an empty component', entry({ library: 'cti//x.so' }), /empty component/],
    ['a trailing slash', entry({ library: 'cti/' }), /empty component/],
    ['an empty library', entry({ library: '' }), /is empty/],
    ['a backslash', entry({ library: 'cti\\x.dll' }), /backslash/],
    ['an upper-case digest', entry({ sha256: 'A'.repeat(64) }), /64 lowercase hex/],
    ['a short digest', entry({ sha256: 'a'.repeat(63) }), /64 lowercase hex/],
    ['a non-hex digest', entry({ sha256: 'g'.repeat(64) }), /64 lowercase hex/],
    ['required as a string', entry({ required: 'true' }), /required must be a boolean/],
    ['capabilities not an array', entry({ capabilities: 'node.validate' }), /must be an array/],
    [
      'a capability without a version',
      entry({ capabilities: [{ name: 'node.validate' }] }),
      /missing 'version'/,
    ],
    [
      'a capability with an extra field',
      entry({ capabilities: [{ name: 'a', version: '1', x: 1 }] }),
      /unknown field/,
    ],
    ['a blank capability name', entry({ capabilities: [{ name: ' ', version: '1' }] }), /must not be blank/],
  ])('rejects an entry with %s', (_what, bad, message) => {
    expect(() => parseManifest(manifest([bad]))).toThrow(message)
  })

  it('rejects a domain listed twice', () => {
    expect(() => parseManifest(manifest([entry(), entry({ library: 'other.so' })]))).toThrow(/more than once/)
  })
})

describe('libraryPathFault', () => {
  it('accepts plain relative components', () => {
    expect(libraryPathFault('libx.so')).toBeNull()
    expect(libraryPathFault('a/b/libx.so')).toBeNull()
    expect(libraryPathFault('a/..b/x.so')).toBeNull()
  })
})
