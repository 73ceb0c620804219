import { describe, expect, it } from 'vitest'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import { openEngine } from '../runtime/open-engine.js'
import { importStix } from './import.js'
import { compareVersions, formatMicros, parseMicros, timestampKey, versionOf } from './timestamps.js'
import { type RowTuple, StixVersions } from './versions.js'

const malware = (modified: string, name = 'm') => ({
  type: 'malware',
  spec_version: '2.1',
  id: 'malware--11111111-1111-4111-8111-111111111111',
  created: '2024-01-01T00:00:00Z',
  modified,
  name,
  is_family: false,
})
const bundle = (...objects: unknown[]) => ({ type: 'bundle', id: 'bundle--1', objects })

describe('STIX timestamps', () => {
  it('orders versions by instant whatever the fraction digits', () => {
    expect(compareVersions('2024-01-01T00:00:00Z', '2024-01-01T00:00:00.5Z')).toBe(-1)
    expect(compareVersions('2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00Z')).toBe(0)
    expect(compareVersions('2024-01-02T00:00:00Z', '2024-01-01T23:59:59.999999999Z')).toBe(1)
    expect(compareVersions('', '2024-01-01T00:00:00Z')).toBe(-1)
    expect(timestampKey('2024-13-01T00:00:00Z')).toBeUndefined()
    expect(timestampKey('2024-01-01 00:00:00Z')).toBeUndefined()
    expect(versionOf({ created: 'c' })).toBe('c')
    expect(versionOf({})).toBe('')
  })

  it('reads and writes microsecond date-added stamps', () => {
    const micros = parseMicros('2024-01-02T03:04:05.123456789Z') as number
    expect(formatMicros(micros)).toBe('2024-01-02T03:04:05.123456Z')
    expect(formatMicros(parseMicros('1970-01-01T00:00:00Z') as number)).toBe('1970-01-01T00:00:00.000000Z')
    expect(parseMicros('yesterday')).toBeUndefined()
  })
})

describe('StixVersions', () => {
  it('hands out increasing stamps even when the clock stands still or goes back', () => {
    let now = 1000
    const versions = new StixVersions(() => now)
    const a = versions.stamp()
    const b = versions.stamp()
    now = 999
    const c = versions.stamp()
    expect(a).toBe(1_000_000)
    expect([b, c]).toEqual([a + 1, a + 2])
  })

  it('rebuilds the same state from its image, re-stamps superseding older log entries', () => {
    const versions = new StixVersions(() => 0)
    const row = (version: string, added: number, raw: string | null = null): RowTuple => [
      'malware--1',
      'malware',
      version,
      '2.1',
      null,
      raw,
      added,
    ]
    versions.apply({ w: 'w', rows: [row('2024-01-01T00:00:00Z', 10), row('2024-01-02T00:00:00Z', 11)] })
    versions.apply({ w: 'w', rows: [row('2024-01-01T00:00:00.000Z', 12, '{"old":1}')] })
    const w = versions.workspace('w')
    expect(w?.versions('malware--1').map((r) => [r.version, r.added, r.raw])).toEqual([
      ['2024-01-01T00:00:00Z', 12, '{"old":1}'],
      ['2024-01-02T00:00:00Z', 11, null],
    ])
    expect([0, 1, 2].map((i) => w?.live(i))).toEqual([false, true, true])
    const copy = new StixVersions(() => 0)
    for (const entry of versions.image()) copy.apply(entry)
    expect(copy.workspace('w')?.versions('malware--1')).toEqual(w?.versions('malware--1'))
    expect(copy.stamp()).toBe(13)
  })
})

describe('WorkspaceVersions columns', () => {
  it("chains an object's versions in version order whatever order they arrive in, per object", () => {
    const versions = new StixVersions(() => 0)
    const t = (id: string, version: string, added: number, raw: string | null = null): RowTuple => [
      id,
      id.split('--')[0] as string,
      version,
      '2.1',
      id.startsWith('relationship') ? 'malware--a' : null,
      raw,
      added,
    ]
    versions.apply({
      w: 'w',
      rows: [
        t('malware--a', '2024-03-01T00:00:00Z', 1),
        t('malware--a', '2024-01-01T00:00:00Z', 2, '{"v":1}'),
        t('relationship--r', '2024-02-01T00:00:00Z', 3),
        t('malware--a', '2024-02-01T00:00:00Z', 4, '{"v":2}'),
        t('malware--a', '2025-01-01T00:00:00Z', 5),
      ],
    })
    const w = versions.workspace('w')
    expect(w?.versions('malware--a').map((r) => [r.version, r.added, r.raw])).toEqual([
      ['2024-01-01T00:00:00Z', 2, '{"v":1}'],
      ['2024-02-01T00:00:00Z', 4, '{"v":2}'],
      ['2024-03-01T00:00:00Z', 1, null],
      ['2025-01-01T00:00:00Z', 5, null],
    ])
    expect(w?.versions('relationship--r')).toEqual([
      {
        id: 'relationship--r',
        type: 'relationship',
        version: '2024-02-01T00:00:00Z',
        spec: '2.1',
        src: 'malware--a',
        raw: null,
        added: 3,
      },
    ])
    expect(w?.row('malware--a', '2024-02-01T00:00:00.000Z')?.added).toBe(4) // the same instant
    expect(w?.row('malware--a', '2024-02-02T00:00:00Z')).toBeUndefined()
    expect(w?.size).toBe(2)
    expect(w?.logSize).toBe(5)
    expect(w?.firstAfter(2)).toBe(2)
    expect(w?.logRow(2).id).toBe('relationship--r')
    // A re-stamp with the text dropped: the old log entry goes stale, the row keeps no text.
    versions.apply({ w: 'w', rows: [t('malware--a', '2024-01-01T00:00:00Z', 6)] })
    expect([0, 1, 5].map((i) => w?.live(i))).toEqual([true, false, true])
    expect(w?.row('malware--a', '2024-01-01T00:00:00Z')?.raw).toBeNull()
  })
})

describe('importing versions', () => {
  it('never lets an older modified replace a newer one, and keeps it as a version', async () => {
    const engine = await openEngine()
    const newer = await importStix(engine, { bundle: bundle(malware('2024-01-03T00:00:00Z', 'newer')) })
    expect(newer.result.metrics.created).toBe(1)
    const older = await importStix(engine, { bundle: bundle(malware('2024-01-02T00:00:00.000Z', 'older')) })
    expect(older.result.metrics).toMatchObject({ duplicate: 1, updated: 0 })
    const name = await engine.read('MATCH (n:Malware) RETURN n.name, n.modified')
    expect(name.data?.rows).toEqual([['newer', '2024-01-03T00:00:00Z']])
    const rows = engine.stixVersions.workspace(DEFAULT_WORKSPACE_ID)
    expect(
      rows?.versions('malware--11111111-1111-4111-8111-111111111111').map((r) => r.raw !== null),
    ).toEqual([true, false])
    // A newer one replaces the current, which is kept (with its text) under its first date added.
    const first = rows?.row('malware--11111111-1111-4111-8111-111111111111', '2024-01-03T00:00:00Z')?.added
    const newest = await importStix(engine, { bundle: bundle(malware('2024-01-04T00:00:00Z', 'newest')) })
    expect(newest.result.metrics.updated).toBe(1)
    const kept = rows?.row('malware--11111111-1111-4111-8111-111111111111', '2024-01-03T00:00:00Z')
    expect(kept?.added).toBe(first)
    expect(JSON.parse(kept?.raw ?? '{}').name).toBe('newer')
    // Re-importing the same version changes nothing, not even its date added.
    const again = await importStix(engine, { bundle: bundle(malware('2024-01-04T00:00:00Z', 'newest')) })
    expect(again.sequence).toBeNull()
    await engine.close()
  })
})
