import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CursorStore } from './cursor-store.js'
import { runCycle } from './cycle.js'
import { type Call, fakeHttp, header, json } from './fake-http.test-support.js'
import { loadSettings } from './settings.js'

const TOKEN = 'service-token-for-cycle-test'
const settings = {
  ...loadSettings({
    SERVICE_INGEST_TAXII_ROOT_URL: 'http://taxii.test/root/',
    SERVICE_INGEST_TAXII_COLLECTION_ID: 'c1',
    SERVICE_INGEST_SERVICE_BASE_URL: 'http://svc.test',
    SERVICE_INGEST_SERVICE_AUTH_TOKEN: TOKEN,
    SERVICE_INGEST_PAGE_LIMIT: '2',
  }),
  maxRetries: 1,
  retryBaseMs: 1,
}
const policy = { maxRetries: 1, baseMs: 1, maxMs: 1 }
const stamp = (i: number) => `2024-01-01T00:00:0${i}.000000Z`

interface Scenario {
  objects: number
  importStatus?: number
  importBody?: unknown
}

/** TAXII at taxii.test (objects 0..n-1, pages of two) and the service at svc.test. */
function world({ objects, importStatus = 200, importBody }: Scenario) {
  const imports: {
    body: { bundle: { type: string; objects: { id: string }[] }; workspace_id: string }
    call: Call
  }[] = []
  const fake = fakeHttp((call) => {
    if (call.url.host === 'svc.test') {
      imports.push({ call, body: JSON.parse(String(call.init.body)) })
      const requested = imports.at(-1)!.body.bundle.objects.length
      return new Response(
        JSON.stringify(importBody ?? { ok: true, result: { metrics: { requested, created: requested } } }),
        { status: importStatus, headers: { 'content-type': 'application/json' } },
      )
    }
    const after = call.url.searchParams.get('added_after')
    const ids = Array.from({ length: objects }, (_, i) => i).filter((i) => after === null || stamp(i) > after)
    const offset = Number(call.url.searchParams.get('next') ?? 0)
    const page = ids.slice(offset, offset + 2)
    const more = offset + 2 < ids.length
    return json(
      {
        more,
        ...(more ? { next: String(offset + 2) } : {}),
        objects: page.map((i) => ({ type: 'tool', id: `tool--${i}` })),
      },
      200,
      page.length > 0 ? { 'X-TAXII-Date-Added-Last': stamp(page.at(-1)!) } : {},
    )
  })
  return { ...fake, imports }
}

const store = () => new CursorStore(join(mkdtempSync(join(tmpdir(), 'taxii-cycle-')), 'ingest'))

describe('runCycle', () => {
  it('imports every page in one POST, then advances the cursor', async () => {
    const w = world({ objects: 5 })
    const cursors = store()
    const report = await runCycle({ http: w.http, policy, settings, cursors })
    expect(report).toMatchObject({ cursor: null, next_cursor: stamp(4), pages: 3, fetched: 5, bundles: 1 })
    expect(report.counts).toMatchObject({ requested: 5, created: 5 })
    expect(w.imports).toHaveLength(1)
    const { body, call } = w.imports[0]!
    expect(call.url.pathname).toBe('/v1/import/stix')
    expect(header(call, 'authorization')).toBe(`Bearer ${TOKEN}`)
    expect(body.workspace_id).toBe('workspace--ingest-taxii')
    expect(body.bundle.type).toBe('bundle')
    expect(body.bundle.objects.map((o) => o.id)).toEqual([0, 1, 2, 3, 4].map((i) => `tool--${i}`))
    expect(await cursors.get('c1')).toBe(stamp(4))
    expect(JSON.stringify(w.events)).not.toContain(TOKEN)
  })

  it('fetches from the cursor next time and posts nothing when nothing is new', async () => {
    const cursors = store()
    await runCycle({ ...world({ objects: 3 }), policy, settings, cursors })
    const again = world({ objects: 3 })
    const report = await runCycle({ http: again.http, policy, settings, cursors })
    expect(again.calls[0]!.url.searchParams.get('added_after')).toBe(stamp(2))
    expect(report).toMatchObject({ fetched: 0, bundles: 0, next_cursor: stamp(2) })
    expect(again.imports).toHaveLength(0)

    const more = world({ objects: 5 })
    const third = await runCycle({ http: more.http, policy, settings, cursors })
    expect(more.imports[0]!.body.bundle.objects.map((o) => o.id)).toEqual(['tool--3', 'tool--4'])
    expect(third.next_cursor).toBe(stamp(4))
  })

  it.each([
    [
      'a 4xx',
      {
        importStatus: 400,
        importBody: { ok: false, error: { code: 'INVALID_STIX_BUNDLE', message: 'bad' } },
      },
    ],
    ['a 5xx after retries', { importStatus: 503 }],
    ['a 2xx without ok:true', { importBody: { ok: false } }],
  ])('keeps the cursor when the import answers %s', async (_, scenario) => {
    const cursors = store()
    await cursors.save('c1', stamp(0))
    const w = world({ objects: 3, ...scenario })
    await expect(runCycle({ http: w.http, policy, settings, cursors })).rejects.toThrow(
      /import answered HTTP/,
    )
    expect(await cursors.get('c1')).toBe(stamp(0))
  })

  it('splits a large cycle into ordered imports and advances only after all succeed', async () => {
    const cursors = store()
    const small = { ...settings, maxBundleBytes: 600 }
    let n = 0
    const w = world({ objects: 9 })
    const failSecond = {
      ...w.http,
      fetch: async (url: string, init: RequestInit) => {
        if (url.startsWith('http://svc.test') && ++n === 2) return new Response('{}', { status: 400 })
        return w.http.fetch(url, init)
      },
    }
    await expect(runCycle({ http: failSecond, policy, settings: small, cursors })).rejects.toThrow()
    expect(await cursors.get('c1')).toBeUndefined()
    const ok = world({ objects: 9 })
    const report = await runCycle({ http: ok.http, policy, settings: small, cursors })
    expect(report.bundles).toBeGreaterThan(1)
    expect(ok.imports.flatMap((i) => i.body.bundle.objects.map((o) => o.id))).toHaveLength(9)
    expect(report.counts.requested).toBe(9)
    expect(await cursors.get('c1')).toBe(stamp(8))
  })
})

describe('runCycle against a smaller server body limit', () => {
  it('halves a bundle refused with 413 until the pieces fit', async () => {
    const cursors = store()
    const w = world({ objects: 8 })
    const limited = {
      ...w.http,
      fetch: async (url: string, init: RequestInit) => {
        const size = JSON.parse(String(init.body ?? '{}')).bundle?.objects.length ?? 0
        if (url.startsWith('http://svc.test') && size > 3) return new Response('', { status: 413 })
        return w.http.fetch(url, init)
      },
    }
    const report = await runCycle({ http: limited, policy, settings, cursors })
    expect(w.imports.map((i) => i.body.bundle.objects.length)).toEqual([2, 2, 2, 2])
    expect(w.imports.flatMap((i) => i.body.bundle.objects.map((o) => o.id))).toEqual(
      Array.from({ length: 8 }, (_, i) => `tool--${i}`),
    )
    expect(report).toMatchObject({ bundles: 4, counts: { requested: 8 } })
    expect(w.events.filter((e) => e.event === 'bundle_split')).toHaveLength(3)
    expect(await cursors.get('c1')).toBe(stamp(7))
  })
})
