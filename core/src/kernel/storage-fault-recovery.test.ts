import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'
import { clearStorageFailure, injectStorageFailure } from '../testing/index.js'

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'faults-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 10))
}

describe('recovery in place after a log failure', () => {
  it('refuses the failed write, keeps reading the durable state, and resumes writes by itself', async () => {
    const dir = tempDir()
    const warnings: string[] = []
    const engine = await openEngine({
      storage: { mode: 'persistent', dir },
      onWarning: (m) => warnings.push(m),
    })
    await engine.write("CREATE (:Kept {v: 'acknowledged'})")
    injectStorageFailure(engine, Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }))
    await expect(engine.write("CREATE (:Lost {v: 'refused'})")).rejects.toMatchObject({
      code: 'DURABILITY_FAILED',
    })
    expect(engine.storageFaults()).toMatchObject({ faults_total: 1 })
    const read = await engine.read('MATCH (n) RETURN labels(n)[0] AS l ORDER BY l')
    expect(read.data?.rows).toEqual([['Kept']])
    // The storage keeps failing: reads go on, writes stay refused.
    await new Promise((r) => setTimeout(r, 200))
    expect(engine.isReady()).toBe(false)
    expect(engine.storageFaults()).toMatchObject({ state: 'writes_suspended' })
    expect((await engine.read('MATCH (n) RETURN count(n) AS c')).data?.rows).toEqual([[1]])
    await expect(engine.write('CREATE (:Lost)')).rejects.toMatchObject({ code: 'DURABILITY_FAILED' })
    clearStorageFailure(engine)
    await until(() => engine.isReady())
    expect(engine.storageFaults()).toMatchObject({ state: 'healthy', recoveries_total: 1, reason: null })
    await engine.write("CREATE (:After {v: 'resumed'})")
    await engine.close()
    const reopened = await openEngine({ storage: { mode: 'persistent', dir } })
    const all = await reopened.read('MATCH (n) RETURN labels(n)[0] AS l ORDER BY l')
    expect(all.data?.rows).toEqual([['After'], ['Kept']])
    await reopened.close()
    expect(warnings.join('\n')).toMatch(/writes suspended, recovering in place[\s\S]*writes resumed/)
  })

  it('a refused write stays absent after the resume', async () => {
    const engine = await openEngine({ storage: { mode: 'persistent', dir: tempDir() } })
    await engine.write('CREATE (:A)')
    injectStorageFailure(engine)
    const failed = engine.write('CREATE (:B)')
    await expect(failed).rejects.toMatchObject({ code: 'DURABILITY_FAILED' })
    clearStorageFailure(engine)
    await until(() => engine.isReady())
    const count = await engine.read('MATCH (n) RETURN count(n) AS c')
    expect(count.data?.rows).toEqual([[1]])
    await engine.close()
  })
})
