import { cpSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'
import { RECORD_FORMAT, TEMPORAL_RECORD_FORMAT } from '../version.js'

const tempDir = () => join(mkdtempSync(join(tmpdir(), 'points-')), 'graph')
const ws = { workspaceId: 'w' }

const READ =
  'MATCH (n:P) RETURN n.at, n.route, n.at = point({longitude: 12.5, latitude: 55.5, height: 7}) AS eq'
const EXPECTED = [
  { $point: { crs: 'wgs-84-3d', longitude: 12.5, latitude: 55.5, height: 7 } },
  [{ $point: { crs: 'cartesian', x: 1, y: 2 } }],
  true,
]

describe('point property values in a persistent store', () => {
  it('raise the record format to JsonLinesV2 when first stored and come back equal after recovery', async () => {
    const dir = tempDir()
    let engine = await openEngine({ storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 } })
    const format = () => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).record_format
    // The tag inside a string is only text: the directory stays on JsonLinesV1.
    await engine.write('CREATE (:T {v: \'{\\"$point\\":{\\"x\\":1}}\'})', {}, ws)
    expect(format()).toBe(RECORD_FORMAT)
    const write = `CREATE (:P {at: point({longitude: 12.5, latitude: 55.5, height: 7}), route: [point({x: 1, y: 2})]})`
    expect((await engine.write(write, {}, ws)).status).toBe('Success')
    expect(format()).toBe(TEMPORAL_RECORD_FORMAT)
    const crashed = tempDir()
    cpSync(dir, crashed, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    await engine.close()

    engine = await openEngine({ storage: { mode: 'persistent', dir: crashed } })
    expect(engine.recoveryFacts().recovery_path).toBe('full_replay')
    expect((await engine.read(READ, {}, ws)).data?.rows).toEqual([EXPECTED])
    await engine.checkpoint()
    await engine.close()
    engine = await openEngine({ storage: { mode: 'persistent', dir: crashed } })
    expect(engine.recoveryFacts().recovery_path).toBe('checkpoint_and_bounded_replay')
    expect((await engine.read(READ, {}, ws)).data?.rows).toEqual([EXPECTED])
    await engine.close()
  })
})
