import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../../runtime/open-engine.js'

describe('a LOAD CSV read in the kernel', () => {
  it('holds no read gate while it waits for its file: writes go on meanwhile', async () => {
    let release: () => void = () => {}
    let requested: () => void = () => {}
    const asked = new Promise<void>((resolve) => {
      requested = resolve
    })
    const server = createServer((_req, res) => {
      res.write('name\nAda\n')
      release = () => res.end('Bo\n')
      requested()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/people.csv`
    const root = mkdtempSync(join(tmpdir(), 'load-csv-kernel-'))
    const engine = await openEngine({
      storage: { mode: 'persistent', dir: root, requireFsync: false },
      cypherImport: { allowedUrls: [url] },
    })
    try {
      await engine.cypher({ query: "CREATE (:Person {name: 'Cy'})", mode: 'write', workspaceId: 'people' })
      const read = engine.cypher({
        query: `LOAD CSV WITH HEADERS FROM '${url}' AS row
                OPTIONAL MATCH (p:Person {name: 'Cy'}) RETURN row.name, p.name`,
        mode: 'read',
        workspaceId: 'people',
      })
      await asked
      // The file is half sent: a write elsewhere commits (durably) while the read waits for the rest.
      const write = await engine.cypher({ query: 'CREATE (:Other)', mode: 'write', workspaceId: 'other' })
      expect(write.status).toBe('Success')
      release()
      const result = await read
      expect(result.status).toBe('Success')
      expect(result.data?.rows).toEqual([
        ['Ada', 'Cy'],
        ['Bo', 'Cy'],
      ])
    } finally {
      release()
      await engine.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(root, { recursive: true, force: true })
    }
  })
})
