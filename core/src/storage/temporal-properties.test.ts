import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'
import { RECORD_FORMAT, TEMPORAL_RECORD_FORMAT } from '../version.js'

const tempDir = () => join(mkdtempSync(join(tmpdir(), 'temporal-')), 'graph')
const ws = { workspaceId: 'w' }

const WRITE = `CREATE (a:T {
  d: date('2015-07-21'), lt: localtime('21:40:32.142'), t: time('21:40:32.142+01:00'),
  ldt: localdatetime('2015-W30-2T214032.142'), dt: datetime('2015-07-21T21:40:32.142+01:00[Europe/London]'),
  odt: datetime('1984-10-11T12:00+02:05:59'), dur: duration('P1Y2M3DT4H5M6.000000007S'),
  dates: [date('2015-01-01'), date('2016-02-29')]
})-[:R {at: datetime('2024-05-01T10:30:15.123456789+02:00[Europe/Paris]')}]->(:T {d: date('1999-12-31')})`

const READ = `MATCH (a:T)-[r:R]->(b:T) RETURN a.d, a.lt, a.t, a.ldt, a.dt, a.odt, a.dur, a.dates, r.at, b.d,
  a.dt = datetime('2015-07-21T21:40:32.142[Europe/London]') AS eq`

const EXPECTED = [
  { $date: '2015-07-21' },
  { $localtime: '21:40:32.142' },
  { $time: '21:40:32.142+01:00' },
  { $localdatetime: '2015-07-21T21:40:32.142' },
  { $datetime: '2015-07-21T21:40:32.142+01:00[Europe/London]' },
  { $datetime: '1984-10-11T12:00+02:05:59' },
  { $duration: 'P1Y2M3DT4H5M6.000000007S' },
  [{ $date: '2015-01-01' }, { $date: '2016-02-29' }],
  { $datetime: '2024-05-01T10:30:15.123456789+02:00[Europe/Paris]' },
  { $date: '1999-12-31' },
  true,
]

describe('temporal property values in a persistent store', () => {
  it('come back equal after recovery from the WAL alone and from a checkpoint', async () => {
    const dir = tempDir()
    let engine = await openEngine({ storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 } })
    expect((await engine.write(WRITE, {}, ws)).status).toBe('Success')
    expect((await engine.read(READ, {}, ws)).data?.rows).toEqual([EXPECTED])
    // A copy taken while it runs (lock left out) is what a crash leaves: the WAL and no checkpoint.
    const crashed = tempDir()
    cpSync(dir, crashed, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    await engine.close()

    engine = await openEngine({ storage: { mode: 'persistent', dir: crashed } })
    expect(engine.recoveryFacts().recovery_path).toBe('full_replay')
    expect((await engine.read(READ, {}, ws)).data?.rows).toEqual([EXPECTED])
    // Indexed equality lookups meet the stored values.
    const found = await engine.read("MATCH (n:T {d: date('1999-12-31')}) RETURN count(n)", {}, ws)
    expect(found.data?.rows).toEqual([[1]])
    await engine.checkpoint()
    await engine.close()

    engine = await openEngine({ storage: { mode: 'persistent', dir: crashed } })
    expect(engine.recoveryFacts().recovery_path).toBe('checkpoint_and_bounded_replay')
    expect((await engine.read(READ, {}, ws)).data?.rows).toEqual([EXPECTED])
    await engine.close()
  })

  it('stay on JsonLinesV1 until a temporal value is stored, then mark the directory JsonLinesV2', async () => {
    const dir = tempDir()
    let engine = await openEngine({ storage: { mode: 'persistent', dir } })
    await engine.write("CREATE (:T {v: 'x'})", {}, ws)
    const manifestPath = join(dir, 'manifest.json')
    const format = () => JSON.parse(readFileSync(manifestPath, 'utf8')).record_format
    expect(format()).toBe(RECORD_FORMAT)
    // A temporal value inside a string is only text: the directory stays readable by V1-only builds.
    await engine.write('CREATE (:T {v: \'{\\"$date\\":\\"2024-01-01\\"}\'})', {}, ws)
    expect(format()).toBe(RECORD_FORMAT)
    await engine.write("CREATE (:T {v: date('2024-01-01')})", {}, ws)
    expect(format()).toBe(TEMPORAL_RECORD_FORMAT)
    await engine.close()
    engine = await openEngine({ storage: { mode: 'persistent', dir } })
    expect((await engine.read('MATCH (n:T) RETURN count(n)', {}, ws)).data?.rows).toEqual([[3]])
    await engine.close()
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))

    // A format this build does not know is refused as incompatible (exit code 5 at the host).
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, record_format: 'JsonLinesV99' }))
    await expect(openEngine({ storage: { mode: 'persistent', dir } })).rejects.toMatchObject({
      code: 'STORAGE_INCOMPATIBLE',
    })
  })
})
