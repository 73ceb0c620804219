import { describe, expect, it } from 'vitest'
import { planBundles } from './bundles.js'
import { latestVersions } from './stix.js'

const node = (id: string, modified = '2020-01-01T00:00:00Z', extra = {}) => ({
  type: 'malware',
  id,
  modified,
  ...extra,
})
const rel = (id: string) => ({ type: 'relationship', id, source_ref: 'malware--a', target_ref: 'malware--b' })

describe('planBundles', () => {
  it('keeps the newest version of each id, in first-arrival order', () => {
    const out = latestVersions([
      node('malware--a', '2021-01-01T00:00:00Z'),
      node('malware--b'),
      node('malware--a', '2020-01-01T00:00:00Z'),
      node('malware--b', '2022-01-01T00:00:00Z', { name: 'new' }),
      { type: 'note' },
    ])
    expect(out).toEqual([
      node('malware--a', '2021-01-01T00:00:00Z'),
      node('malware--b', '2022-01-01T00:00:00Z', { name: 'new' }),
      { type: 'note' },
    ])
  })

  it('puts objects before relationships and fits one bundle when small', () => {
    const bundles = planBundles([rel('relationship--1'), node('malware--a'), node('malware--b')], 1 << 20)
    expect(bundles).toHaveLength(1)
    expect(bundles[0]!.type).toBe('bundle')
    expect(bundles[0]!.id).toMatch(/^bundle--[0-9a-f-]{36}$/)
    expect(bundles[0]!.objects.map((o) => o.id)).toEqual(['malware--a', 'malware--b', 'relationship--1'])
  })

  it('splits in order at the size bound, relationships last', () => {
    const objects = [
      rel('relationship--1'),
      ...Array.from({ length: 10 }, (_, i) => node(`malware--${i}`, undefined, { pad: 'x'.repeat(200) })),
    ]
    const bundles = planBundles(objects, 1200)
    expect(bundles.length).toBeGreaterThan(2)
    for (const b of bundles) {
      if (b.objects.length > 1) expect(JSON.stringify(b).length).toBeLessThan(1200)
    }
    const ids = bundles.flatMap((b) => b.objects.map((o) => o.id))
    expect(ids).toEqual([...Array.from({ length: 10 }, (_, i) => `malware--${i}`), 'relationship--1'])
  })

  it('sends an oversized object alone', () => {
    const bundles = planBundles(
      [node('malware--big', undefined, { pad: 'x'.repeat(5000) }), node('malware--b')],
      1024,
    )
    expect(bundles.map((b) => b.objects.length)).toEqual([1, 1])
  })
})
