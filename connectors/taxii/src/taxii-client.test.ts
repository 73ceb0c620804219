import { describe, expect, it } from 'vitest'
import { type Call, fakeHttp, header, json } from './fake-http.test-support.js'
import {
  fetchCollection,
  MAX_PAGES,
  TAXII_MEDIA_TYPE,
  TaxiiError,
  type TaxiiSettings,
} from './taxii-client.js'

const settings: TaxiiSettings = {
  taxiiRootUrl: 'http://taxii.test/api1/',
  collectionId: 'coll 1',
  taxiiAuth: { kind: 'basic', username: 'u', password: 'p' },
  pageLimit: 2,
  taxiiTimeoutMs: 1000,
}
const policy = { maxRetries: 2, baseMs: 1, maxMs: 10 }
const added = (i: number) => `2024-01-01T00:00:${String(i).padStart(2, '0')}.000000Z`

/** A collection of `count` objects, object i added at second i; pages of `limit` linked by `next=<offset>`. */
function collection(count: number) {
  return ({ url }: Call) => {
    const after = url.searchParams.get('added_after')
    const limit = Number(url.searchParams.get('limit'))
    const all = Array.from({ length: count }, (_, i) => i).filter((i) => after === null || added(i) > after)
    const offset = Number(url.searchParams.get('next') ?? 0)
    const page = all.slice(offset, offset + limit)
    const more = offset + limit < all.length
    const headers: Record<string, string> =
      page.length === 0
        ? {}
        : { 'X-TAXII-Date-Added-First': added(page[0]!), 'X-TAXII-Date-Added-Last': added(page.at(-1)!) }
    const body = {
      more,
      ...(more ? { next: String(offset + limit) } : {}),
      ...(page.length > 0 ? { objects: page.map((i) => ({ type: 'malware', id: `malware--${i}` })) } : {}),
    }
    return json(body, 200, headers)
  }
}

describe('fetchCollection', () => {
  it('follows next while more holds and reports the last Date-Added header', async () => {
    const { http, calls } = fakeHttp(collection(5))
    const out = await fetchCollection(http, policy, settings, undefined)
    expect(out.objects.map((o) => o.id)).toEqual([0, 1, 2, 3, 4].map((i) => `malware--${i}`))
    expect(out).toMatchObject({ pages: 3, dateAddedLast: added(4), truncated: false })
    expect(calls.map((c) => c.url.pathname)).toEqual(Array(3).fill('/api1/collections/coll%201/objects/'))
    expect(calls.map((c) => c.url.searchParams.get('next'))).toEqual([null, '2', '4'])
    expect(calls.every((c) => c.url.searchParams.get('limit') === '2')).toBe(true)
    expect(header(calls[0]!, 'accept')).toBe(TAXII_MEDIA_TYPE)
    expect(header(calls[0]!, 'authorization')).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`)
  })

  it('sends the cursor as added_after on every page', async () => {
    const { http, calls } = fakeHttp(collection(6))
    const out = await fetchCollection(http, policy, settings, added(2))
    expect(out.objects.map((o) => o.id)).toEqual(['malware--3', 'malware--4', 'malware--5'])
    expect(calls.every((c) => c.url.searchParams.get('added_after') === added(2))).toBe(true)
  })

  it('returns nothing, and no cursor, for an empty window', async () => {
    const { http } = fakeHttp(collection(3))
    expect(await fetchCollection(http, policy, settings, added(2))).toEqual({
      objects: [],
      pages: 1,
      dateAddedLast: undefined,
      truncated: false,
    })
  })

  it(`stops after ${MAX_PAGES} pages, keeping the cursor of the last one`, async () => {
    const { http, calls, events } = fakeHttp(collection(2 * MAX_PAGES + 10))
    const big = { ...settings, pageLimit: 1 }
    const out = await fetchCollection(http, policy, big, undefined)
    expect(calls).toHaveLength(MAX_PAGES)
    expect(out).toMatchObject({ pages: MAX_PAGES, truncated: true })
    expect(out.dateAddedLast).toBe(added(MAX_PAGES - 1))
    expect(events.at(-1)).toMatchObject({ event: 'pagination_stopped', fields: { reason: 'page bound' } })
  })

  it('stops when more comes without next', async () => {
    const { http } = fakeHttp(() => json({ more: true, objects: [{ type: 'x', id: 'x--1' }] }))
    expect(await fetchCollection(http, policy, settings, undefined)).toMatchObject({
      pages: 1,
      truncated: true,
    })
  })

  it('retries a 503 page and fails on 4xx or a malformed envelope', async () => {
    let first = true
    const flaky = fakeHttp((call) => {
      if (first) {
        first = false
        return new Response('', { status: 503 })
      }
      return collection(1)(call)
    })
    expect((await fetchCollection(flaky.http, policy, settings, undefined)).objects).toHaveLength(1)
    expect(flaky.calls).toHaveLength(2)

    const refused = fakeHttp(() => json({ title: 'no' }, 406))
    await expect(fetchCollection(refused.http, policy, settings, undefined)).rejects.toBeInstanceOf(
      TaxiiError,
    )
    const garbled = fakeHttp(() => json({ objects: 'nope' }))
    await expect(fetchCollection(garbled.http, policy, settings, undefined)).rejects.toThrow(/not an array/)
  })
})
