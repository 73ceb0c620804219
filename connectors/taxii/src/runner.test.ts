import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CursorStore } from './cursor-store.js'
import { fakeHttp, json } from './fake-http.test-support.js'
import { ConnectorExit, runConnector } from './runner.js'
import { loadSettings } from './settings.js'
import { Stopper } from './stopper.js'

const settings = (extra: Record<string, string> = {}) =>
  loadSettings({
    SERVICE_INGEST_TAXII_ROOT_URL: 'http://taxii.test/root/',
    SERVICE_INGEST_TAXII_COLLECTION_ID: 'c1',
    SERVICE_INGEST_SERVICE_BASE_URL: 'http://svc.test',
    SERVICE_INGEST_SERVICE_AUTH_TOKEN: 'token',
    SERVICE_INGEST_STATE_DIR: join(mkdtempSync(join(tmpdir(), 'taxii-runner-')), 'ingest'),
    SERVICE_INGEST_POLL_INTERVAL_MS: '5',
    SERVICE_INGEST_MAX_RETRIES: '0',
    ...extra,
  })

const page = () =>
  json({ more: false, objects: [{ type: 'tool', id: 'tool--1' }] }, 200, {
    'X-TAXII-Date-Added-Last': '2024-01-01T00:00:00.000000Z',
  })

describe('runConnector', () => {
  it('gives up with the startup code when the service never becomes ready', async () => {
    const { http, events } = fakeHttp(() => new Response('', { status: 503 }))
    const code = await runConnector(settings({ SERVICE_INGEST_READY_TIMEOUT_MS: '300' }), {
      once: true,
      http,
      stopper: new Stopper(),
    })
    expect(code).toBe(ConnectorExit.Startup)
    expect(events.at(-1)).toMatchObject({ event: 'service_not_ready' })
  })

  it('--once exits 1 when the cycle fails', async () => {
    const { http } = fakeHttp(({ url }) =>
      url.pathname === '/health/ready' ? new Response('{}') : new Response('', { status: 500 }),
    )
    expect(await runConnector(settings(), { once: true, http, stopper: new Stopper() })).toBe(
      ConnectorExit.CycleFailed,
    )
  })

  it('loop mode logs a failed cycle, tries again next interval, and stops after the running cycle', async () => {
    const stopper = new Stopper()
    let imports = 0
    const s = settings()
    const { http, events } = fakeHttp(({ url }) => {
      if (url.pathname === '/health/ready') return new Response('{}')
      if (url.host === 'taxii.test') return page()
      imports++
      if (imports === 1) return new Response('', { status: 503 })
      stopper.stop() // a signal arriving mid-cycle: this cycle still completes
      return new Response(JSON.stringify({ ok: true, result: { metrics: { requested: 1, created: 1 } } }))
    })
    expect(await runConnector(s, { once: false, http, stopper })).toBe(ConnectorExit.Ok)
    expect(
      events.map((e) => e.event).filter((e) => e.startsWith('cycle') || e === 'connector_stopped'),
    ).toEqual(['cycle_start', 'cycle_failed', 'cycle_start', 'cycle_end', 'connector_stopped'])
    expect(await new CursorStore(s.stateDir).get('c1')).toBe('2024-01-01T00:00:00.000000Z')
  })
})
