/**
 * TAXII paging while a writer adds objects: with `limit` 1, 7 and the maximum, a reader that follows `next`
 * and then polls with `added_after` (as the connector does) sees every object exactly once, whatever the
 * interleaving of its pages with the writer's commits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'
import {
  collectionId,
  type Envelope,
  importObjects,
  malware,
  ROOT,
  taxiiGet,
} from './taxii-server-support.js'

const MAX = 50
const INITIAL = 120
const BATCHES = 15
const BATCH = 8

describe('TAXII paging while writes continue', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ env: { SERVICE_TAXII_PAGE_MAX: String(MAX) } })
  })
  afterAll(async () => {
    await server?.stop()
  })

  it.each([1, 7, MAX])('limit %i: nothing skipped, nothing repeated', async (limit) => {
    const ws = `workspace--taxii-paging-${limit}`
    await importObjects(
      server,
      ws,
      Array.from({ length: INITIAL }, (_, i) => malware(i, undefined, limit)),
    )
    const collection = await collectionId(server, ws)
    let writing = true
    const writer = (async () => {
      for (let b = 0; b < BATCHES; b++) {
        const from = INITIAL + b * BATCH
        await importObjects(
          server,
          ws,
          Array.from({ length: BATCH }, (_, i) => malware(from + i, undefined, limit)),
        )
        // Some objects also get a newer version: it must come out once more, as that version.
        await importObjects(server, ws, [
          malware(b, `2024-06-${String(b + 1).padStart(2, '0')}T00:00:00.000Z`, limit),
        ])
        await new Promise((r) => setTimeout(r, 5))
      }
      writing = false
    })()

    const seen: string[] = []
    let pagesWhileWriting = 0
    let next: string | undefined
    let cursor: string | undefined
    for (let requests = 0; requests < 10_000; requests++) {
      const params = new URLSearchParams({ limit: String(limit) })
      if (next !== undefined) params.set('next', next)
      else if (cursor !== undefined) params.set('added_after', cursor)
      const done = !writing
      if (!done) pagesWhileWriting++
      const page = await taxiiGet<Envelope>(server, `${ROOT}collections/${collection}/objects/?${params}`)
      expect(page.status, page.text).toBe(200)
      const objects = page.json.objects ?? []
      expect(objects.length).toBeLessThanOrEqual(limit)
      for (const o of objects) seen.push(`${o.id}@${o.modified}`)
      const last = page.headers['x-taxii-date-added-last']
      if (typeof last === 'string') cursor = last
      next = page.json.more === true ? page.json.next : undefined
      // Stop only after an empty tail read that began once the writer was done.
      if (next === undefined && objects.length === 0 && done) break
    }
    await writer
    expect(pagesWhileWriting, 'pages interleaved with the writes').toBeGreaterThan(2)
    expect(new Set(seen).size, 'no version served twice').toBe(seen.length)
    const ids = new Set(seen.map((s) => s.split('@')[0]))
    expect(ids.size).toBe(INITIAL + BATCHES * BATCH)
    // Every newer version written reached the reader.
    for (let b = 0; b < BATCHES; b++)
      expect(seen).toContain(
        `${malware(b, undefined, limit).id}@2024-06-${String(b + 1).padStart(2, '0')}T00:00:00.000Z`,
      )
  })
})
