/**
 * The service as a TAXII source for another instance: process A publishes a workspace holding the ATT&CK
 * ICS bundle, the TAXII connector pulls A's collection into process B, and B's strict export of the
 * workspace is byte-identical to A's. Objects added to A later arrive in B on the next cycle, once.
 * Versions: an older version after a newer one (JSON body, file, connector, TAXII add) leaves the newer
 * one current, and `versions` lists both.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, sharedDir, startServer, TOKEN } from './harness.js'
import { type Connector, type LogLine, startConnector } from './taxii-server/processes.js'
import {
  addObjects,
  collectionId,
  completed,
  type Envelope,
  importObjects,
  malware,
  ROOT,
  type StixObject,
  taxiiGet,
} from './taxii-server-support.js'

const attackFile = join(sharedDir, 'data', 'stix', 'attack', 'ics-attack-18.1.json')
const dataPresent = existsSync(attackFile)
const WS = 'workspace--attack-ics'
const NEWER = '2024-01-03T00:00:00.000Z'
const OLDER = '2024-01-02T00:00:00.000Z'

async function runConnector(
  a: RunningServer,
  b: RunningServer,
  collection: string,
  workspace: string,
  state: string,
) {
  const connector: Connector = startConnector(
    {
      SERVICE_INGEST_TAXII_ROOT_URL: `${a.url}${ROOT}`,
      SERVICE_INGEST_TAXII_COLLECTION_ID: collection,
      SERVICE_INGEST_TAXII_USERNAME: 'connector',
      SERVICE_INGEST_TAXII_PASSWORD: TOKEN,
      SERVICE_INGEST_SERVICE_BASE_URL: b.url,
      SERVICE_INGEST_SERVICE_AUTH_TOKEN: TOKEN,
      SERVICE_INGEST_WORKSPACE_ID: workspace,
      SERVICE_INGEST_PAGE_LIMIT: '250',
      SERVICE_INGEST_STATE_DIR: state,
      SERVICE_INGEST_RETRY_BASE_MS: '100',
      SERVICE_INGEST_RETRY_MAX_MS: '1000',
      SERVICE_INGEST_READY_TIMEOUT_MS: '20000',
    },
    ['--once'],
  )
  const code = await connector.exited
  expect(code, connector.stdout() + connector.stderr()).toBe(0)
  const end = connector.lines().find((l) => l.event === 'cycle_end') as LogLine & {
    fetched: number
    counts: Record<string, number>
  }
  expect(end).toBeDefined()
  return end
}

const exportOf = async (server: RunningServer, workspace: string) => {
  const res = await server.request(`/v1/export/stix?workspace_id=${workspace}&mode=strict`)
  expect(res.status, res.text.slice(0, 500)).toBe(200)
  return res.text
}

const version = (server: RunningServer, workspace: string, id: string) =>
  server
    .request<{ objects: StixObject[] }>(`/v1/export/stix?workspace_id=${workspace}`)
    .then((res) => res.json.objects.find((o) => o.id === id)?.modified)

describe.skipIf(!dataPresent)('one service pulls another over TAXII', () => {
  let a: RunningServer
  let b: RunningServer
  const state = mkdtempSync(join(tmpdir(), 'taxii-sync-state-'))

  beforeAll(async () => {
    ;[a, b] = await Promise.all([
      startServer({ env: { SERVICE_TAXII_WRITABLE_COLLECTIONS: 'workspace--versions-taxii' } }),
      startServer(),
    ])
  })
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
  })

  it('copies the ATT&CK ICS workspace byte for byte, then only what was added since', async () => {
    const bundle = JSON.parse(readFileSync(attackFile, 'utf8')) as { objects: StixObject[] }
    const imported = await importObjects(a, WS, bundle.objects)
    expect(imported.metrics.created).toBe(bundle.objects.length)
    const collection = await collectionId(a, WS)

    const first = await runConnector(a, b, collection, WS, state)
    expect(first.fetched).toBe(bundle.objects.length)
    expect(first.counts.created).toBe(bundle.objects.length)
    const exportA = await exportOf(a, WS)
    expect(await exportOf(b, WS)).toBe(exportA)

    const added = [malware(1, NEWER, 77), malware(2, NEWER, 77)]
    await importObjects(a, WS, added)
    const second = await runConnector(a, b, collection, WS, state)
    expect(second.fetched).toBe(2)
    expect(second.counts.created).toBe(2)
    expect(second.counts.duplicate ?? 0).toBe(0)
    expect(await exportOf(b, WS)).toBe(await exportOf(a, WS))

    const third = await runConnector(a, b, collection, WS, state)
    expect(third.fetched).toBe(0)
  })

  describe('an older version never replaces a newer one', () => {
    const id = malware(5, NEWER, 88).id
    const newer = malware(5, NEWER, 88, 'newer')
    const older = malware(5, OLDER, 88, 'older')
    const versionsOf = async (server: RunningServer, workspace: string) => {
      const res = await taxiiGet<{ versions: string[] }>(
        server,
        `${ROOT}collections/${await collectionId(server, workspace)}/objects/${id}/versions/`,
      )
      expect(res.status, res.text).toBe(200)
      return res.json.versions
    }

    it('through the JSON import route', async () => {
      await importObjects(b, 'workspace--versions-json', [newer])
      const result = await importObjects(b, 'workspace--versions-json', [older])
      expect(result.metrics).toMatchObject({ duplicate: 1, updated: 0, created: 0 })
      expect(await version(b, 'workspace--versions-json', id)).toBe(NEWER)
      expect(await versionsOf(b, 'workspace--versions-json')).toEqual([NEWER, OLDER])
      // Both versions are served with match[version]=all; the newer is the latest.
      const col = await collectionId(b, 'workspace--versions-json')
      const all = await taxiiGet<Envelope>(b, `${ROOT}collections/${col}/objects/?match[version]=all`)
      expect(all.json.objects?.map((o) => o.name)).toEqual(['newer', 'older'])
      const last = await taxiiGet<Envelope>(b, `${ROOT}collections/${col}/objects/${id}/`)
      expect(last.json.objects?.map((o) => o.name)).toEqual(['newer'])
    })

    it('through the file import route', async () => {
      await importObjects(b, 'workspace--versions-file', [newer])
      const boundary = '----taxii-versions'
      const file = JSON.stringify({
        type: 'bundle',
        id: 'bundle--00000000-0000-4000-8000-000000000009',
        objects: [older],
      })
      const body =
        `--${boundary}\r\nContent-Disposition: form-data; name="workspace_id"\r\n\r\nworkspace--versions-file\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="older.json"\r\nContent-Type: application/json\r\n\r\n${file}\r\n--${boundary}--\r\n`
      const res = await b.request<{ result: { metrics: Record<string, number> } }>('/v1/import/stix/file', {
        rawBody: body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      })
      expect(res.status, res.text).toBe(200)
      expect(res.json.result.metrics).toMatchObject({ duplicate: 1, updated: 0 })
      expect(await version(b, 'workspace--versions-file', id)).toBe(NEWER)
      expect(await versionsOf(b, 'workspace--versions-file')).toEqual([NEWER, OLDER])
    })

    it('through the connector, pulling the older version after the newer', async () => {
      await importObjects(a, 'workspace--versions-source', [older])
      await importObjects(b, 'workspace--versions-pulled', [newer])
      const collection = await collectionId(a, 'workspace--versions-source')
      const state2 = mkdtempSync(join(tmpdir(), 'taxii-versions-state-'))
      const end = await runConnector(a, b, collection, 'workspace--versions-pulled', state2)
      expect(end.fetched).toBe(1)
      expect(end.counts.duplicate).toBe(1)
      expect(await version(b, 'workspace--versions-pulled', id)).toBe(NEWER)
      expect(await versionsOf(b, 'workspace--versions-pulled')).toEqual([NEWER, OLDER])
      // And the other order converges too: the newer one pulled over the older replaces it.
      await importObjects(a, 'workspace--versions-source', [newer])
      const again = await runConnector(a, b, collection, 'workspace--versions-pulled', state2)
      expect(again.fetched).toBe(1)
      expect(await version(b, 'workspace--versions-pulled', id)).toBe(NEWER)
    })

    it('through a TAXII addition', async () => {
      await importObjects(a, 'workspace--versions-taxii', [newer])
      const col = await collectionId(a, 'workspace--versions-taxii')
      const res = await addObjects(a, col, [older])
      expect(res.status, res.text).toBe(202)
      const done = await completed(a, res.json.id)
      expect(done).toMatchObject({ success_count: 1, failure_count: 0 })
      expect(await version(a, 'workspace--versions-taxii', id)).toBe(NEWER)
      expect(await versionsOf(a, 'workspace--versions-taxii')).toEqual([NEWER, OLDER])
    })
  })
})
