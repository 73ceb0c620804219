/**
 * Recall filters and validity through the real server: the HTTP door and the MCP `recall` tool take the same
 * `filters` object, refuse a malformed one naming the field, bind the page token to it, and return a memory
 * past its `valid_until` (ranked below what holds now) unless `valid_at` narrows to an instant, and read the
 * workspace as recorded at an instant with `as_of`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ErrorBody, type RunningServer, startServer } from './harness.js'
import { call, httpClient, type Structured } from './mcp-support.js'
import { type Body, MEMORY_PATH, recallLimits } from './memory-support.js'

const PATH = MEMORY_PATH
const limits = recallLimits()
let keys = 0
let server: RunningServer
let client: Client

const send = (operation: string, input: unknown) =>
  server.request<Body>(PATH, {
    body: {
      contract_version: 'v1',
      operation,
      input,
      ...(operation === 'recall' || operation === 'trace' ? {} : { idempotency_key: `filters-${++keys}` }),
    },
  })

const remember = async (text: string, extra: Record<string, unknown>) => {
  const res = await send('remember', {
    kind: 'note',
    schema_version: '1',
    content: { format: 'text', value: text },
    provenance: [{ source_id: 'chat' }],
    tags: [],
    ...extra,
  })
  expect(res.status).toBe(200)
  return res.json.result.result.record.id as string
}

const recall = async (input: Record<string, unknown>) => {
  const res = await send('recall', { seed_ids: [], limits, ...input })
  expect(res.status, JSON.stringify(res.json)).toBe(200)
  return res.json.result.result
}
const ids = (r: Body) => r.items.map((i: Body) => i.record.id)

let oldHome = ''
let newHome = ''
let tea = ''

beforeAll(async () => {
  server = await startServer()
  client = await httpClient(server.url, { name: 'filters-agent' })
  oldHome = await remember('home address 12 Elm Street', {
    kind: 'address',
    tags: ['home'],
    confidence: 0.9,
    valid_from: '2020-01-01T00:00:00Z',
    valid_until: '2021-06-01T00:00:00Z',
  })
  newHome = await remember('home address 4 Harbour Road', {
    kind: 'address',
    tags: ['home'],
    confidence: 0.95,
    valid_from: '2021-06-01T00:00:00Z',
  })
  tea = await remember('home brew green tea preference', {
    kind: 'preference',
    tags: ['drink'],
    confidence: 0.3,
  })
})
afterAll(async () => {
  await client?.close()
  await server?.stop()
})

describe('recall filters over HTTP', () => {
  it('each filter alone and combined', async () => {
    expect(ids(await recall({ objective: 'home', filters: { kinds: ['address'] } })).sort()).toEqual(
      [oldHome, newHome].sort(),
    )
    expect(ids(await recall({ objective: 'home', filters: { tags_any: ['drink'] } }))).toEqual([tea])
    expect(
      ids(await recall({ objective: 'home', filters: { tags_all: ['home'], min_confidence: 0.92 } })),
    ).toEqual([newHome])
    expect(
      ids(
        await recall({
          objective: 'home',
          filters: { valid_at: '2020-01-01T00:00:00Z', kinds: ['address'] },
        }),
      ),
    ).toEqual([oldHome])
    expect(
      ids(
        await recall({
          objective: 'home',
          filters: { valid_at: '2021-06-01T00:00:00Z', kinds: ['address'] },
        }),
      ),
    ).toEqual([newHome])
    const none = await recall({ objective: 'home', filters: { kinds: ['nothing'] } })
    expect(none.items).toEqual([])
    expect(none.completeness.complete).toBe(true)
    expect(none.usage.filters).toEqual({ kinds: ['nothing'] })
  })

  it('returns a memory past its valid_until below what holds now, with the reason', async () => {
    const r = await recall({ objective: 'home address' })
    const order = ids(r)
    expect(order.indexOf(newHome)).toBeGreaterThanOrEqual(0)
    expect(order.indexOf(newHome)).toBeLessThan(order.indexOf(oldHome))
    const old = r.items.find((i: Body) => i.record.id === oldHome)
    expect(old.selection_reasons).toContain('no_longer_valid_since:2021-06-01T00:00:00Z')
    expect(
      ids(await recall({ objective: 'home address', filters: { valid_at: new Date().toISOString() } })),
    ).not.toContain(oldHome)
  })

  it('refuses malformed filters with 400 INVALID_REQUEST naming the field', async () => {
    for (const filters of [
      { min_confidence: -0.1 },
      { valid_at: 'soon' },
      { as_of: 'then' },
      { kinds: [1] },
      { nope: true },
    ]) {
      const res = await send('recall', { objective: 'home', seed_ids: [], limits, filters })
      expect(res.status).toBe(400)
      expect((res.json as ErrorBody).error.code).toBe('INVALID_REQUEST')
      expect((res.json as ErrorBody).error.message).toContain(`filters.${Object.keys(filters)[0]}`)
    }
  })

  it('binds the page token to the filters', async () => {
    const first = await recall({
      objective: 'home',
      limits: { ...limits, max_items: 1 },
      filters: { tags_any: ['home'] },
    })
    expect(first.next_page_token).not.toBeNull()
    const other = await send('recall', {
      objective: 'home',
      seed_ids: [],
      limits: { ...limits, max_items: 1 },
      page_token: first.next_page_token,
      filters: { tags_any: ['drink'] },
    })
    expect(other.status).toBe(404)
    const second = await recall({
      objective: 'home',
      limits: { ...limits, max_items: 1 },
      page_token: first.next_page_token,
      filters: { tags_any: ['home'] },
    })
    expect(ids(second)).toHaveLength(1)
    expect(ids(second)).not.toEqual(ids(first))
  })
})

describe('recall as_of: the workspace as recorded at an instant', () => {
  it('over HTTP and MCP: nothing before it was recorded, a rewritten memory as it was', async () => {
    const empty = await recall({ objective: 'home address', filters: { as_of: '2000-01-01T00:00:00Z' } })
    expect(empty.items).toEqual([])
    expect(empty.usage.filters).toEqual({ as_of: '2000-01-01T00:00:00Z' })
    const note = await remember('favourite mug is the blue one', { kind: 'preference' })
    await new Promise((r) => setTimeout(r, 20))
    const between = new Date().toISOString()
    await new Promise((r) => setTimeout(r, 20))
    const rewrite = await send('update', {
      target: { kind: 'memory', id: note },
      patch: { content: { format: 'text', value: 'favourite mug is the green one' } },
    })
    expect(rewrite.status).toBe(200)
    const text = (r: Body) => r.items.find((i: Body) => i.record.id === note)?.record.content.value
    expect(text(await recall({ objective: 'favourite mug' }))).toBe('favourite mug is the green one')
    expect(text(await recall({ objective: 'favourite mug', filters: { as_of: between } }))).toBe(
      'favourite mug is the blue one',
    )
    const viaMcp: Structured = await call(client, 'recall', {
      objective: 'favourite mug',
      filters: { as_of: between },
    })
    expect(viaMcp.items.find((i: Structured) => i.record.id === note)?.record.content.value).toBe(
      'favourite mug is the blue one',
    )
    expect(viaMcp.usage.filters).toEqual({ as_of: between })
  })
})

describe('recall filters through the MCP recall tool', () => {
  it('filters, reports them, and pages with them', async () => {
    const out: Structured = await call(client, 'recall', {
      objective: 'home',
      filters: { kinds: ['address'] },
      limits: { max_items: 1 },
    })
    expect(out.items).toHaveLength(1)
    expect(out.usage.filters).toEqual({ kinds: ['address'] })
    expect(out.page.next.filters).toEqual({ kinds: ['address'] })
    const next: Structured = await call(client, 'recall', out.page.next)
    expect(next.items.map((i: Structured) => i.record.kind)).toEqual(['address'])
    // A malformed call is a protocol error naming the field (MCP: invalid params), as for every tool.
    await expect(
      call(client, 'recall', { objective: 'home', filters: { min_confidence: 2 } }),
    ).rejects.toThrow(/filters\.min_confidence/)
  })
})
