/**
 * Three processes: the service, the test TAXII 2.1 server and the TAXII connector. The connector pulls the
 * ATT&CK ICS collection in pages and imports it with POST /v1/import/stix; counts are checked with Cypher.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, sharedDir, startServer, TOKEN } from './harness.js'
import {
  type Connector,
  type LogLine,
  startConnector,
  startTaxiiServer,
  TAXII_MEDIA_TYPE,
  type TaxiiServer,
} from './taxii-server/processes.js'

const medallionFile = join(sharedDir, 'data', 'taxii', 'medallion-default-data.json')
const attackFile = join(sharedDir, 'data', 'stix', 'attack', 'ics-attack-18.1.json')
const dataPresent = existsSync(medallionFile) && existsSync(attackFile)
const skipNote = dataPresent ? '' : ` (skipped: TAXII test data not found under ${sharedDir}; set SHARED_DIR)`

const ATTACK_PATH = '/attack/collections/attack-ics/objects/'
const MEDALLION_COLLECTION = '/trustgroup1/collections/91a7b528-80eb-42ed-a74d-c6fbd5a26116'

interface Expected {
  objects: number
  nodes: number
  relationships: number
  lastAdded: string
}

/** What the collection holds, from the source bundle: one date_added second per object from 2024-01-01. */
function expected(): Expected {
  const objects = (JSON.parse(readFileSync(attackFile, 'utf8')) as { objects: { type: string }[] }).objects
  const relationships = objects.filter((o) => o.type === 'relationship' || o.type === 'sighting').length
  const last = new Date(Date.UTC(2024, 0, 1) + (objects.length - 1) * 1000).toISOString().slice(0, 19)
  return {
    objects: objects.length,
    nodes: objects.length - relationships,
    relationships,
    lastAdded: `${last}.000000Z`,
  }
}

interface CypherEnvelope {
  ok: boolean
  result: { status: string; data: { rows: unknown[][] } | null }
}

/** Counts in the connector's default workspace, where its imports land (each workspace is its own graph). */
async function graphCounts(server: RunningServer): Promise<{ nodes: number; relationships: number }> {
  const count = async (query: string) => {
    const res = await server.request<CypherEnvelope>('/v1/cypher/read', {
      body: { query, workspace_id: 'workspace--ingest-taxii' },
    })
    expect(res.status, res.text).toBe(200)
    return Number(res.json.result.data?.rows[0]?.[0])
  }
  return {
    nodes: await count('MATCH (n:StixObject) WHERE n.stix_id IS NOT NULL RETURN count(n)'),
    relationships: await count('MATCH ()-[r]->() RETURN count(r)'),
  }
}

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))

function connectorEnv(
  service: RunningServer,
  taxii: TaxiiServer,
  stateDir: string,
  extra: Record<string, string> = {},
) {
  return {
    SERVICE_INGEST_TAXII_ROOT_URL: `${taxii.url}/attack/`,
    SERVICE_INGEST_TAXII_COLLECTION_ID: 'attack-ics',
    SERVICE_INGEST_SERVICE_BASE_URL: service.url,
    SERVICE_INGEST_SERVICE_AUTH_TOKEN: TOKEN,
    SERVICE_INGEST_PAGE_LIMIT: '200',
    SERVICE_INGEST_STATE_DIR: stateDir,
    SERVICE_INGEST_RETRY_BASE_MS: '100',
    SERVICE_INGEST_RETRY_MAX_MS: '1000',
    SERVICE_INGEST_READY_TIMEOUT_MS: '20000',
    ...extra,
  }
}

async function runOnce(env: Record<string, string>): Promise<{ code: number | null; connector: Connector }> {
  const connector = startConnector(env, ['--once'])
  const code = await connector.exited
  return { code, connector }
}

const events = (connector: Connector, event: string): LogLine[] =>
  connector.lines().filter((l) => l.event === event)
const cursorFile = (stateDir: string) =>
  JSON.parse(readFileSync(join(stateDir, 'cursors.json'), 'utf8')) as { cursors: Record<string, string> }

describe.skipIf(!dataPresent)(`TAXII 2.1 ingest${skipNote}`, () => {
  let taxii: TaxiiServer
  let want: Expected

  beforeAll(async () => {
    want = expected()
    taxii = await startTaxiiServer({
      TAXII_MEDALLION_FILE: medallionFile,
      TAXII_ATTACK_FILE: attackFile,
      TAXII_PAGE_MAX: '500',
    })
  })
  afterAll(async () => {
    await taxii?.stop()
  })

  describe('the TAXII server', () => {
    it('answers 406 to a request without the TAXII 2.1 media type', async () => {
      for (const accept of [null, 'application/json', 'application/taxii+json;version=2.0']) {
        const res = await taxii.get(ATTACK_PATH, accept)
        expect(res.status, String(accept)).toBe(406)
        expect(res.headers.get('content-type')).toBe(TAXII_MEDIA_TYPE)
      }
      expect((await taxii.get(ATTACK_PATH, 'application/taxii+json')).status).toBe(200)
    })

    it('serves discovery, API roots and collections, and 404 for an unknown collection', async () => {
      const discovery = (await (await taxii.get('/taxii2/')).json()) as { api_roots: string[] }
      expect(discovery.api_roots).toContain(`${taxii.url}/attack/`)
      const collections = (await (await taxii.get('/trustgroup1/collections/')).json()) as {
        collections: unknown[]
      }
      expect(collections.collections).toHaveLength(5)
      expect((await taxii.get('/trustgroup1/collections/no-such-collection/objects/')).status).toBe(404)
    })

    it('filters by added_after strictly and pages with next, with Date-Added headers', async () => {
      const all = await taxii.get(`${MEDALLION_COLLECTION}/objects/`)
      const body = (await all.json()) as { more: boolean; objects: { id: string }[] }
      expect(body.more).toBe(false)
      expect(body.objects).toHaveLength(5) // latest version of each of five ids
      expect(all.headers.get('x-taxii-date-added-last')).toBe('2017-12-31T13:49:53.935000Z')

      const after = await taxii.get(
        `${MEDALLION_COLLECTION}/objects/?added_after=2017-01-20T00:00:00.000000Z`,
      )
      const later = (await after.json()) as { objects: { id: string }[] }
      // The marking definition was added exactly at the cursor: strictly after excludes it.
      expect(later.objects.map((o) => o.id)).toEqual([
        'malware--c0931cc6-c75e-47e5-9036-78fabc95d4ec',
        'indicator--6770298f-0fd8-471a-ab8c-1c658a46574e',
      ])
      expect(after.headers.get('x-taxii-date-added-first')).toBe('2017-01-27T13:49:59.997000Z')

      const first = await taxii.get(`${ATTACK_PATH}?limit=3&added_after=2024-01-01T00:00:01.000000Z`)
      const page = (await first.json()) as { more: boolean; next: string; objects: unknown[] }
      expect(page).toMatchObject({ more: true })
      expect(page.objects).toHaveLength(3)
      expect(first.headers.get('x-taxii-date-added-first')).toBe('2024-01-01T00:00:02.000000Z')
      const second = await taxii.get(`${ATTACK_PATH}?limit=3&next=${page.next}`)
      expect(second.headers.get('x-taxii-date-added-first')).toBe('2024-01-01T00:00:05.000000Z')
      const empty = await taxii.get(`${ATTACK_PATH}?added_after=${want.lastAdded}`)
      expect(await empty.json()).toEqual({ more: false })
      expect(empty.headers.get('x-taxii-date-added-last')).toBeNull()
    })
  })

  describe('the connector against an ephemeral service', () => {
    let service: RunningServer
    const stateDir = join(tempDir('taxii-state-'), 'ingest')

    beforeAll(async () => {
      service = await startServer({ env: { SERVICE_LOG_LEVEL: 'warn' } })
    })
    afterAll(async () => {
      await service?.stop()
    })

    it('--once imports the whole collection, in pages, with one import', async () => {
      const { code, connector } = await runOnce(connectorEnv(service, taxii, stateDir))
      expect(code, connector.stderr() + connector.stdout()).toBe(0)
      const pages = events(connector, 'page_fetched')
      expect(pages).toHaveLength(Math.ceil(want.objects / 200))
      expect(
        events(connector, 'bundle_split'),
        'the server answered 413 to the ~3.5 MB import: does /v1/import/stix apply the 32 MiB import body limit?',
      ).toHaveLength(0)
      const imports = events(connector, 'import_result')
      expect(imports).toHaveLength(1)
      expect(imports[0]).toMatchObject({
        requested: want.objects,
        rejected: 0,
        unresolved_reference: 0,
        failed: 0,
      })
      expect(cursorFile(stateDir)).toEqual({ cursors: { 'attack-ics': want.lastAdded } })
      expect(await graphCounts(service)).toEqual({ nodes: want.nodes, relationships: want.relationships })
      expect(connector.stdout()).not.toContain(TOKEN)
    }, 180_000)

    it('a second run with the same state imports nothing', async () => {
      const before = await graphCounts(service)
      const { code, connector } = await runOnce(connectorEnv(service, taxii, stateDir))
      expect(code, connector.stderr() + connector.stdout()).toBe(0)
      expect(events(connector, 'cycle_end')[0]).toMatchObject({
        fetched: 0,
        bundles: 0,
        cursor: want.lastAdded,
      })
      expect(events(connector, 'import_start')).toHaveLength(0)
      const sent = (await taxii.requests()).filter((r) => r.path === ATTACK_PATH).at(-1)
      expect(sent?.query).toMatchObject({ added_after: want.lastAdded, limit: '200' })
      expect(sent?.accept).toBe(TAXII_MEDIA_TYPE)
      expect(await graphCounts(service)).toEqual(before)
    }, 60_000)

    it('a run without the cursor re-imports everything as duplicates', async () => {
      const before = await graphCounts(service)
      const { code, connector } = await runOnce(
        connectorEnv(service, taxii, join(tempDir('taxii-state-'), 'x')),
      )
      expect(code, connector.stderr() + connector.stdout()).toBe(0)
      const [result] = events(connector, 'import_result')
      expect(result).toMatchObject({ requested: want.objects, created: 0, updated: 0, rejected: 0 })
      expect(await graphCounts(service)).toEqual(before)
    }, 180_000)

    it('retries TAXII 503s, and keeps no cursor when the import is refused (medallion collection)', async () => {
      const medallion = (dir: string, extra: Record<string, string> = {}) =>
        connectorEnv(service, taxii, dir, {
          SERVICE_INGEST_TAXII_ROOT_URL: `${taxii.url}/trustgroup1/`,
          SERVICE_INGEST_TAXII_COLLECTION_ID: '91a7b528-80eb-42ed-a74d-c6fbd5a26116',
          ...extra,
        })
      const refusedDir = join(tempDir('taxii-state-'), 'ingest')
      const refused = await runOnce(
        medallion(refusedDir, { SERVICE_INGEST_SERVICE_AUTH_TOKEN: 'not-the-token' }),
      )
      expect(refused.code).toBe(1)
      expect(events(refused.connector, 'cycle_failed')[0]?.error).toMatch(/HTTP 401/)
      expect(existsSync(join(refusedDir, 'cursors.json'))).toBe(false)
      expect(refused.connector.stdout()).not.toContain('not-the-token')

      await taxii.faults({ fail_next: 2, retry_after: 0 })
      const dir = join(tempDir('taxii-state-'), 'ingest')
      const ok = await runOnce(medallion(dir))
      expect(ok.code, ok.connector.stderr() + ok.connector.stdout()).toBe(0)
      expect(events(ok.connector, 'retry').map((l) => l.status)).toEqual([503, 503])
      expect(events(ok.connector, 'import_result')[0]).toMatchObject({ requested: 5, rejected: 0 })
      expect(cursorFile(dir).cursors['91a7b528-80eb-42ed-a74d-c6fbd5a26116']).toBe(
        '2017-12-31T13:49:53.935000Z',
      )
    }, 60_000)
  })

  it('recovers when the service is killed mid-run and restarted', async () => {
    const graphDir = join(tempDir('taxii-graph-'), 'graph')
    const stateDir = join(tempDir('taxii-state-'), 'ingest')
    const persistent = {
      SERVICE_STORAGE_MODE: 'persistent',
      SERVICE_STORAGE_DIR: graphDir,
      SERVICE_LOG_LEVEL: 'warn',
    }
    let service = await startServer({ env: persistent })
    const port = service.port
    // Slow pages give a window to kill the service while the connector is still fetching.
    await taxii.faults({ delay_ms: 150 })
    const connector = startConnector(
      connectorEnv(service, taxii, stateDir, {
        SERVICE_INGEST_POLL_INTERVAL_MS: '500',
        SERVICE_INGEST_MAX_RETRIES: '2',
      }),
    )
    try {
      await connector.waitFor((l) => l.event === 'page_fetched')
      await service.kill()
      const failed = await connector.waitFor((l) => l.event === 'cycle_failed', 60_000)
      expect(String(failed.error)).toMatch(/import failed after 3 attempts/)
      expect(existsSync(join(stateDir, 'cursors.json'))).toBe(false)

      service = await startServer({ env: persistent, port })
      await connector.waitFor((l) => l.event === 'cursor_saved', 90_000)
      expect(cursorFile(stateDir)).toEqual({ cursors: { 'attack-ics': want.lastAdded } })
      expect(await graphCounts(service)).toEqual({ nodes: want.nodes, relationships: want.relationships })

      expect(await connector.stop()).toBe(0)
      expect(events(connector, 'connector_stopped')).toHaveLength(1)

      // The import was durable: a clean restart of the service sees the same graph.
      await service.stop()
      service = await startServer({ env: persistent, port })
      expect(await graphCounts(service)).toEqual({ nodes: want.nodes, relationships: want.relationships })
    } finally {
      await taxii.faults({ delay_ms: 0 })
      await connector.stop('SIGKILL')
      await service.stop()
    }
  }, 300_000)
})
