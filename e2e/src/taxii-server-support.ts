/** Helpers of the TAXII server e2e tests: STIX objects, imports, TAXII requests against a RunningServer. */
import { expect } from 'vitest'
import type { HttpResponse, RunningServer } from './harness.js'

export const TAXII = 'application/taxii+json;version=2.1'
export const ROOT = '/taxii2/root/'

export interface StixObject {
  type: string
  id: string
  [key: string]: unknown
}
export interface Envelope {
  more?: boolean
  next?: string
  objects?: StixObject[]
}
export interface TaxiiErrorBody {
  title: string
  description?: string
  error_code?: string
  http_status?: string
}
export interface Status {
  id: string
  status: 'pending' | 'complete'
  total_count: number
  success_count: number
  failure_count: number
  pending_count: number
  successes: { id: string; version: string; message?: string }[]
  failures: { id: string; version: string; message?: string }[]
  pendings: { id: string; version: string }[]
}

const uuid = (n: number, salt = 0) =>
  `${salt.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

/** A valid STIX 2.1 malware object; `n` makes the id, `modified` the version. */
export function malware(
  n: number,
  modified = '2024-01-01T00:00:00.000Z',
  salt = 0,
  name = `m${n}`,
): StixObject {
  return {
    type: 'malware',
    spec_version: '2.1',
    id: `malware--${uuid(n, salt)}`,
    created: '2024-01-01T00:00:00.000Z',
    modified,
    name,
    is_family: false,
  }
}

export function indicator(n: number, salt = 0): StixObject {
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: `indicator--${uuid(n, salt)}`,
    created: '2024-01-01T00:00:00.000Z',
    modified: '2024-01-01T00:00:00.000Z',
    pattern: `[ipv4-addr:value = '10.0.0.${n % 250}']`,
    pattern_type: 'stix',
    valid_from: '2024-01-01T00:00:00Z',
  }
}

export async function importObjects(server: RunningServer, workspace: string, objects: StixObject[]) {
  const res = await server.request<{ ok: boolean; result: { metrics: Record<string, number> } }>(
    '/v1/import/stix',
    { body: { workspace_id: workspace, bundle: { type: 'bundle', id: `bundle--${uuid(1)}`, objects } } },
  )
  expect(res.status, res.text).toBe(200)
  return res.json.result
}

/** GET with the TAXII Accept header and the bearer token unless told otherwise. */
export function taxiiGet<T>(
  server: RunningServer,
  path: string,
  options: { headers?: Record<string, string>; token?: string | null } = {},
): Promise<HttpResponse<T>> {
  return server.request<T>(path, {
    headers: { accept: TAXII, ...options.headers },
    ...(options.token === undefined ? {} : { token: options.token }),
  })
}

export async function collectionId(server: RunningServer, workspace: string): Promise<string> {
  const res = await taxiiGet<{ collections?: { id: string; title: string }[] }>(server, `${ROOT}collections/`)
  expect(res.status, res.text).toBe(200)
  const found = res.json.collections?.find((c) => c.title === workspace)
  expect(found, `collection of ${workspace}`).toBeDefined()
  return (found as { id: string }).id
}

export function addObjects(server: RunningServer, collection: string, objects: StixObject[]) {
  return server.request<Status>(`${ROOT}collections/${collection}/objects/`, {
    method: 'POST',
    headers: { accept: TAXII, 'content-type': TAXII },
    rawBody: JSON.stringify({ objects }),
  })
}

/** Polls a status resource until complete. */
export async function completed(server: RunningServer, statusId: string): Promise<Status> {
  for (let i = 0; i < 200; i++) {
    const res = await taxiiGet<Status>(server, `${ROOT}status/${statusId}/`)
    expect(res.status, res.text).toBe(200)
    if (res.json.status === 'complete') return res.json
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`status ${statusId} still pending`)
}

/** Every object of a collection, paged with `next` at `limit`. */
export async function pageAll(server: RunningServer, collection: string, query = '', limit = 1000) {
  const objects: StixObject[] = []
  let next: string | undefined
  for (;;) {
    const params = new URLSearchParams(query)
    params.set('limit', String(limit))
    if (next !== undefined) params.set('next', next)
    const res = await taxiiGet<Envelope>(server, `${ROOT}collections/${collection}/objects/?${params}`)
    expect(res.status, res.text).toBe(200)
    objects.push(...(res.json.objects ?? []))
    if (res.json.more !== true) return objects
    next = res.json.next
  }
}
