/**
 * TAXII 2.1 conformance of the service's TAXII routes against the real server process, section by section
 * of the specification (OASIS TAXII Version 2.1, 2021): 1.6 media types and auth, 3.4 filtering and
 * pagination, 3.6 errors, 4.1 discovery and API root, 4.3 status, 5.1-5.8 collections, objects, manifest,
 * versions and additions.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer, TOKEN } from './harness.js'
import {
  addObjects,
  collectionId,
  completed,
  type Envelope,
  importObjects,
  indicator,
  malware,
  ROOT,
  TAXII,
  type TaxiiErrorBody,
  taxiiGet,
} from './taxii-server-support.js'

const WS = 'workspace--taxii-conformance'
const WRITABLE = 'workspace--taxii-writable'
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

function expectTaxiiError(
  res: { status: number; headers: Record<string, unknown>; json: unknown },
  status: number,
) {
  expect(res.status).toBe(status)
  expect(res.headers['content-type']).toBe(TAXII)
  const body = res.json as TaxiiErrorBody
  expect(typeof body.title).toBe('string')
  expect(body.http_status).toBe(String(status))
  expect(body).not.toHaveProperty('ok')
}

describe('TAXII 2.1 server conformance', () => {
  let server: RunningServer
  let col: string
  const objects = `${ROOT}collections/`
  const url = (rest = '') => `${objects}${col}/${rest}`

  beforeAll(async () => {
    server = await startServer({
      env: {
        SERVICE_TAXII_WRITABLE_COLLECTIONS: WRITABLE,
        SERVICE_TAXII_PAGE_DEFAULT: '4',
        SERVICE_TAXII_PAGE_MAX: '6',
        SERVICE_HTTP_IMPORT_MAX_BODY_BYTES: '65536',
      },
    })
    // Ten malware at one version, two of them with a second; three indicators, one in its own import.
    await importObjects(server, WS, [
      ...Array.from({ length: 10 }, (_, i) => malware(i)),
      indicator(1),
      indicator(2),
    ])
    await importObjects(server, WS, [
      malware(0, '2024-02-01T00:00:00.000Z'),
      malware(1, '2024-02-01T00:00:00Z'),
    ])
    await importObjects(server, WS, [indicator(3)])
    await importObjects(server, WRITABLE, [malware(100)])
    col = await collectionId(server, WS)
  })
  afterAll(async () => {
    await server?.stop()
  })

  describe('1.6 media types', () => {
    it('answers with application/taxii+json;version=2.1 and 406 to an Accept it cannot serve', async () => {
      const ok = await taxiiGet(server, '/taxii2/')
      expect(ok.status).toBe(200)
      expect(ok.headers['content-type']).toBe(TAXII)
      for (const accept of [
        'application/taxii+json',
        '*/*',
        'application/json, application/taxii+json;version=2.1',
      ])
        expect((await taxiiGet(server, url('objects/'), { headers: { accept } })).status, accept).toBe(200)
      for (const accept of ['application/json', 'application/taxii+json;version=2.0', 'text/html'])
        expectTaxiiError(await taxiiGet(server, url('objects/'), { headers: { accept } }), 406)
    })

    it('answers 415 to an addition whose Content-Type is not the TAXII media type', async () => {
      const w = await collectionId(server, WRITABLE)
      for (const type of ['application/json', 'application/taxii+json;version=2.0', 'text/plain']) {
        const res = await server.request<TaxiiErrorBody>(`${objects}${w}/objects/`, {
          method: 'POST',
          headers: { accept: TAXII, 'content-type': type },
          rawBody: JSON.stringify({ objects: [malware(101)] }),
        })
        expectTaxiiError(res, 415)
      }
    })
  })

  describe('1.6.9 authentication', () => {
    it('takes HTTP Basic with any user name and the token as password, and the bearer token', async () => {
      for (const authorization of [basic('alice', TOKEN), basic('', TOKEN), `Bearer ${TOKEN}`]) {
        const res = await taxiiGet(server, `${ROOT}collections/`, { token: null, headers: { authorization } })
        expect(res.status, authorization.slice(0, 6)).toBe(200)
      }
    })

    it('refuses missing and wrong credentials with a TAXII error and a Basic challenge', async () => {
      const missing = await taxiiGet(server, `${ROOT}collections/`, { token: null })
      expectTaxiiError(missing, 401)
      expect(String(missing.headers['www-authenticate'])).toMatch(/^Basic /)
      for (const authorization of [
        basic('alice', `${TOKEN}x`),
        basic(TOKEN, 'x'),
        `Bearer ${TOKEN}x`,
        'Basic !!',
      ]) {
        const res = await taxiiGet(server, url('objects/'), { token: null, headers: { authorization } })
        expectTaxiiError(res, 401)
      }
      expect(server.stdout()).not.toContain(TOKEN)
    })
  })

  describe('4.1 discovery and API root', () => {
    it('names one API root as default and in api_roots', async () => {
      const res = await taxiiGet<{ title: string; default: string; api_roots: string[] }>(server, '/taxii2/')
      expect(res.json.title).toBeTruthy()
      expect(res.json.default).toBe(`${server.url}${ROOT}`)
      expect(res.json.api_roots).toEqual([res.json.default])
    })

    it('describes the API root with its version and content length', async () => {
      const res = await taxiiGet<{ versions: string[]; max_content_length: number }>(server, ROOT)
      expect(res.json.versions).toEqual([TAXII])
      expect(res.json.max_content_length).toBe(65536)
    })
  })

  describe('5.1 and 5.2 collections', () => {
    it('publishes each workspace holding STIX objects with its id as title and a UUIDv4 id', async () => {
      const res = await taxiiGet<{ collections: Record<string, unknown>[] }>(server, `${ROOT}collections/`)
      const mine = res.json.collections.find((c) => c.title === WS)
      expect(mine).toMatchObject({ id: col, can_read: true, can_write: false })
      expect(mine?.media_types).toEqual(['application/stix+json;version=2.1'])
      expect(col).toMatch(UUID4)
      expect(res.json.collections.find((c) => c.title === WRITABLE)).toMatchObject({ can_write: true })
      const one = await taxiiGet<Record<string, unknown>>(server, url())
      expect(one.json).toEqual(mine)
      expect((await collectionId(server, WS)) === col).toBe(true)
    })

    it('answers 404 for an unknown collection and an unknown path, 405 for a wrong method', async () => {
      expectTaxiiError(await taxiiGet(server, `${objects}00000000-0000-4000-8000-000000000000/objects/`), 404)
      expectTaxiiError(await taxiiGet(server, `${ROOT}nothing/`), 404)
      const res = await server.request(url('manifest/'), { method: 'DELETE', headers: { accept: TAXII } })
      expectTaxiiError(res, 405)
      expect(res.headers.allow).toContain('GET')
    })
  })

  describe('5.3 objects, with 3.4 filtering and pagination', () => {
    const get = (query: string) => taxiiGet<Envelope>(server, url(`objects/?${query}`))
    const ids = (e: Envelope) => (e.objects ?? []).map((o) => `${o.id}@${o.modified}`)

    it('serves the latest version of each object, the default page size, then pages with next', async () => {
      const first = await get('')
      expect(first.json.objects).toHaveLength(4)
      expect(first.json.more).toBe(true)
      expect(first.headers['x-taxii-date-added-first']).toMatch(TIMESTAMP)
      expect(first.headers['x-taxii-date-added-last']).toMatch(TIMESTAMP)
      const all = [...(first.json.objects ?? [])]
      let next = first.json.next
      while (next !== undefined) {
        const page = await get(`next=${next}`)
        all.push(...(page.json.objects ?? []))
        next = page.json.more ? page.json.next : undefined
      }
      expect(all).toHaveLength(13)
      expect(new Set(all.map((o) => o.id)).size).toBe(13)
      expect(all.find((o) => o.id === malware(0).id)?.modified).toBe('2024-02-01T00:00:00.000Z')
    })

    it('bounds limit: the maximum caps it, zero and garbage are 400', async () => {
      expect((await get('limit=6')).json.objects).toHaveLength(6)
      expect((await get('limit=7')).json.objects).toHaveLength(6)
      expect((await get('limit=1')).json.objects).toHaveLength(1)
      for (const bad of ['limit=0', 'limit=-1', 'limit=x', 'limit=1.5']) expectTaxiiError(await get(bad), 400)
    })

    it('filters added_after strictly, against the Date-Added headers', async () => {
      const head = await get('limit=2')
      const last = String(head.headers['x-taxii-date-added-last'])
      const after = await get(`limit=6&added_after=${last}`)
      const firstAfter = String(after.headers['x-taxii-date-added-first'])
      expect(firstAfter > last).toBe(true)
      expect(ids(after.json)).not.toContain(ids(head.json)[1])
      expectTaxiiError(await get('added_after=yesterday'), 400)
      const none = await get('added_after=2999-01-01T00:00:00Z')
      expect(none.json).toEqual({ more: false })
      expect(none.headers['x-taxii-date-added-first']).toBeUndefined()
    })

    it('filters match[id], match[type] and match[spec_version], each a comma list', async () => {
      const one = await get(`match[id]=${malware(3).id}`)
      expect(ids(one.json)).toEqual([`${malware(3).id}@2024-01-01T00:00:00.000Z`])
      const two = await get(`match[id]=${malware(3).id},${indicator(1).id}`)
      expect(two.json.objects).toHaveLength(2)
      const types = await get('match[type]=indicator&limit=6')
      expect(types.json.objects?.map((o) => o.type)).toEqual(['indicator', 'indicator', 'indicator'])
      expect((await get('match[type]=indicator,malware&limit=6')).json.objects).toHaveLength(6)
      expect((await get('match[type]=tool')).json.objects).toBeUndefined()
      expect((await get('match[spec_version]=2.1&limit=6')).json.objects).toHaveLength(6)
      expect((await get('match[spec_version]=2.0')).json.objects).toBeUndefined()
      expectTaxiiError(await get('match[colour]=red'), 400)
      expectTaxiiError(await get('match[id]=a,,b'), 400)
    })

    it('filters match[version]: last by default, first, all, or a timestamp', async () => {
      const q = (v: string) => get(`match[id]=${malware(0).id},${malware(1).id}&match[version]=${v}`)
      const newer = ['2024-02-01T00:00:00.000Z', '2024-02-01T00:00:00Z']
      expect((await q('last')).json.objects?.map((o) => o.modified).sort()).toEqual([...newer].sort())
      expect((await q('first')).json.objects?.map((o) => o.modified)).toEqual([
        '2024-01-01T00:00:00.000Z',
        '2024-01-01T00:00:00.000Z',
      ])
      expect((await q('all')).json.objects).toHaveLength(4)
      expect((await q('first,last')).json.objects).toHaveLength(4)
      // A timestamp matches the instant whatever its precision.
      expect((await q('2024-02-01T00:00:00.000000Z')).json.objects).toHaveLength(2)
      expect((await q('2023-01-01T00:00:00Z')).json.objects).toBeUndefined()
      expectTaxiiError(await q('newest'), 400)
    })
  })

  describe('5.4 manifest, 5.5 one object, 5.7 versions', () => {
    it('lists one manifest entry per version with date_added, version and media type', async () => {
      const res = await taxiiGet<{ objects: Record<string, string>[] }>(
        server,
        url(`manifest/?match[id]=${malware(0).id}&match[version]=all`),
      )
      expect(res.json.objects).toHaveLength(2)
      for (const entry of res.json.objects) {
        expect(entry.id).toBe(malware(0).id)
        expect(entry.date_added).toMatch(TIMESTAMP)
        expect(entry.media_type).toBe('application/stix+json;version=2.1')
      }
      expect(res.json.objects.map((e) => e.version)).toEqual([
        '2024-01-01T00:00:00.000Z',
        '2024-02-01T00:00:00.000Z',
      ])
      expect(res.headers['x-taxii-date-added-last']).toBe(res.json.objects[1]?.date_added)
      const paged = await taxiiGet<Envelope>(server, url('manifest/?limit=2'))
      expect(paged.json.objects).toHaveLength(2)
      expect(paged.json.more).toBe(true)
    })

    it('gets one object (latest by default) and 404 for an object the collection does not hold', async () => {
      const one = await taxiiGet<Envelope>(server, url(`objects/${malware(0).id}/`))
      expect(one.json.objects?.map((o) => o.modified)).toEqual(['2024-02-01T00:00:00.000Z'])
      const all = await taxiiGet<Envelope>(server, url(`objects/${malware(0).id}/?match[version]=all`))
      expect(all.json.objects).toHaveLength(2)
      expectTaxiiError(await taxiiGet(server, url(`objects/${malware(999).id}/`)), 404)
      expectTaxiiError(await taxiiGet(server, url(`objects/${malware(0).id}/?match[type]=malware`)), 400)
    })

    it('lists the versions of an object in date-added order', async () => {
      const res = await taxiiGet<{ more: boolean; versions: string[] }>(
        server,
        url(`objects/${malware(1).id}/versions/`),
      )
      expect(res.json).toEqual({
        more: false,
        versions: ['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00Z'],
      })
      expectTaxiiError(await taxiiGet(server, url(`objects/${malware(999).id}/versions/`)), 404)
    })
  })

  describe('5.6 add objects and 4.3 status', () => {
    it('accepts an envelope into a writable collection: 202 pending, then complete with successes', async () => {
      const w = await collectionId(server, WRITABLE)
      const res = await addObjects(server, w, [malware(101), malware(102), malware(100)])
      expect(res.status, res.text).toBe(202)
      expect(res.headers['content-type']).toBe(TAXII)
      expect(res.json).toMatchObject({
        status: 'pending',
        total_count: 3,
        pending_count: 3,
        success_count: 0,
      })
      const done = await completed(server, res.json.id)
      expect(done).toMatchObject({ status: 'complete', total_count: 3, success_count: 3, failure_count: 0 })
      expect(done.successes.map((s) => s.id).sort()).toEqual([
        malware(100).id,
        malware(101).id,
        malware(102).id,
      ])
      const held = await taxiiGet<Envelope>(server, `${objects}${w}/objects/?limit=6`)
      expect(held.json.objects).toHaveLength(3)
    })

    it('reports each failure with its reason', async () => {
      const w = await collectionId(server, WRITABLE)
      const dangling = {
        type: 'relationship',
        spec_version: '2.1',
        id: 'relationship--00000000-0000-4000-8000-000000000001',
        created: '2024-01-01T00:00:00.000Z',
        modified: '2024-01-01T00:00:00.000Z',
        relationship_type: 'uses',
        source_ref: malware(100).id,
        target_ref: malware(555).id,
      }
      const res = await addObjects(server, w, [malware(103), dangling])
      expect(res.status).toBe(202)
      const done = await completed(server, res.json.id)
      expect(done.failure_count).toBe(2)
      expect(done.failures.find((f) => f.id === dangling.id)?.message).toContain(malware(555).id)
      expect(done.failures.find((f) => f.id === malware(103).id)?.message).toContain('ATOMIC_IMPORT_ABORTED')
    })

    it('refuses additions to a read-only collection (403), a non-envelope (400) and a body over the limit (413)', async () => {
      expectTaxiiError(await addObjects(server, col, [malware(200)]), 403)
      const w = await collectionId(server, WRITABLE)
      const post = (body: string) =>
        server.request(`${objects}${w}/objects/`, {
          method: 'POST',
          headers: { accept: TAXII, 'content-type': TAXII },
          rawBody: body,
        })
      expectTaxiiError(await post('{"objects":"no"}'), 400)
      expectTaxiiError(await post('{"objects":[{"type":"malware"}]}'), 400)
      expectTaxiiError(await post('not json'), 400)
      expectTaxiiError(
        await post(JSON.stringify({ objects: [{ ...malware(201), description: 'x'.repeat(70_000) }] })),
        413,
      )
      expectTaxiiError(await taxiiGet(server, `${ROOT}status/00000000-0000-4000-8000-000000000000/`), 404)
    })
  })
})

describe('TAXII collections and dates added are durable', () => {
  it('keeps collection ids and date_added across a restart and a crash recovery', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'taxii-durable-'))
    const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir }
    let server = await startServer({ env })
    await importObjects(server, WS, [malware(1), malware(2)])
    const col = await collectionId(server, WS)
    const manifest = async () =>
      (await taxiiGet<{ objects: unknown[] }>(server, `${ROOT}collections/${col}/manifest/`)).json
    const before = await manifest()
    await server.stop()
    server = await startServer({ env })
    expect(await collectionId(server, WS)).toBe(col)
    expect(await manifest()).toEqual(before)
    await importObjects(server, WS, [malware(3)])
    const grown = await manifest()
    await server.kill()
    server = await startServer({ env })
    expect(await collectionId(server, WS)).toBe(col)
    expect(await manifest()).toEqual(grown)
    await server.stop()
  })

  it('limits TAXII requests with the bearer routes bucket (429 as a TAXII error)', async () => {
    const server = await startServer({
      env: { SERVICE_HTTP_RATE_LIMIT_PER_SECOND: '1', SERVICE_HTTP_RATE_LIMIT_BURST: '2' },
    })
    const codes: number[] = []
    for (let i = 0; i < 4; i++) codes.push((await taxiiGet(server, '/taxii2/')).status)
    expect(codes.slice(0, 2)).toEqual([200, 200])
    const limited = await taxiiGet(server, '/taxii2/')
    expectTaxiiError(limited, 429)
    expect(limited.headers['retry-after']).toBeDefined()
    await server.stop()
  })
})
