import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'

interface Health {
  status: string
  service: string
  version: string
  storage_mode: string
  uptime_ms: number
  session_ttl_metrics: object
  domain_providers: object
  durability: Record<string, number | null | object> & { controls: object; recovery: object }
}

describe('operations surface', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(async () => {
    await server.stop()
  })

  it('GET /health returns every field of the spec health record with its type', async () => {
    const res = await server.request<Health>('/health', { token: null })
    expect(res.status).toBe(200)
    const h = res.json
    expect(h.status).toBe('ok')
    expect(h.service).toBe('service-http-server')
    expect(h.version).toBe('0.3.1')
    expect(h.storage_mode).toBe('ephemeral')
    expect(Number.isInteger(h.uptime_ms)).toBe(true)
    expect(h.session_ttl_metrics).toEqual({ total_expired_sessions: 0, expired_last_5m_sessions: 0 })
    expect(h.domain_providers).toEqual({ configured: 0, ready: 0 })
    const d = h.durability
    expect(d.controls).toEqual({ require_fsync: false, strict_recovery: false })
    for (const key of ['wal_bytes', 'wal_lag_sequences', 'compaction_backlog_bytes']) {
      expect(Number.isInteger(d[key]) && (d[key] as number) >= 0).toBe(true)
    }
    expect(d.checkpoint_sequence).toBeNull()
    expect(d.checkpoint_age_seconds).toBeNull()
    expect(d.recovery).toEqual({
      outcome: 'ephemeral',
      manifest_validated: false,
      required_components_validated: false,
      catalog_recovered: false,
      adjacency_storage_recovered: false,
      warning_count: 0,
      derived_state_rebuilt: false,
    })
  })

  it('GET /health/live and /health/ready answer without a token', async () => {
    const live = await server.request<Record<string, unknown>>('/health/live', { token: null })
    expect(live.status).toBe(200)
    expect(live.json).toMatchObject({
      status: 'live',
      live: true,
      service: 'service-http-server',
      lifecycle_state: 'ready',
    })
    const ready = await server.request<Record<string, unknown>>('/health/ready', { token: null })
    expect(ready.status).toBe(200)
    expect(ready.json).toMatchObject({
      status: 'ready',
      ready: true,
      checks: {
        engine_initialized: true,
        storage_recovered: true,
        providers_ready: true,
        accepting_requests: true,
      },
    })
  })

  it('GET /version reports 0.3.1 and the storage compatibility boundary', async () => {
    const res = await server.request<Record<string, unknown>>('/version', { token: null })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({
      service: 'service-http-server',
      version: '0.3.1',
      storage_compatibility: {
        supported_versions: ['V1'],
        supported_record_formats: ['JsonLinesV1', 'JsonLinesV2', 'JsonLinesV3'],
        active_storage_version: null,
        active_record_format: null,
      },
      ref_mode: 'elastic_free',
    })
    expect(typeof (res.json as { commit: unknown }).commit).toBe('string')
    expect((res.json as { build_target: string }).build_target).toMatch(/-/)
  })

  it('GET /metrics serves the Prometheus text format with every metric the spec names', async () => {
    await server.request('/health', { token: null })
    const res = await server.request('/metrics', { token: null })
    expect(res.status).toBe(200)
    expect(String(res.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/)
    for (const name of [
      'service_domain_providers_configured',
      'service_domain_providers_ready',
      'service_ref_projection_outbox_depth',
      'service_ref_projection_lag',
      'service_ref_projection_retries_total',
      'service_ref_projection_quarantined',
      'service_ref_projection_reconstruction_total',
      'service_ref_write_authority',
      'process_cpu_seconds_total',
      'service_http_request_duration_seconds_bucket',
      'service_seed_index_backlog',
      'service_seed_embedding_backlog',
    ]) {
      expect(res.text).toContain(`\n${name}`)
    }
    // One-hot over the three authorities.
    expect(res.text).toContain('service_ref_write_authority{authority="service_primary"} 1')
    expect(res.text).toContain('service_ref_write_authority{authority="writes_suspended"} 0')
    expect(res.text).toContain('service_ref_write_authority{authority="reference_primary"} 0')
    expect(res.text).toMatch(
      /service_http_request_duration_seconds_count\{method="GET",route="\/health",status_code="200"\} \d+/,
    )
  })

  it('serves an OpenAPI 3.1 document whose info.version is 0.1.0 and lists every registered route', async () => {
    const res = await server.request<{
      openapi: string
      info: { version: string }
      paths: Record<string, object>
    }>('/openapi.json', { token: null })
    expect(res.status).toBe(200)
    expect(res.json.openapi).toMatch(/^3\.1\.\d+$/)
    expect(res.json.info.version).toBe('0.1.0')
    const { registeredRoutesFromCli } = await import('./routes.js')
    const routes = await registeredRoutesFromCli()
    for (const route of routes) {
      // The explorer page's shell routes are pages, not API operations: hidden from the document.
      if (route.url === '/openapi.json' || route.access === 'public') continue
      const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}')
      expect(res.json.paths, `${route.method} ${route.url} missing from the OpenAPI document`).toHaveProperty(
        [path],
      )
      expect(res.json.paths[path]).toHaveProperty(route.method.toLowerCase())
    }
  })

  it('echoes a valid correlation id and replaces an invalid one', async () => {
    const kept = await server.request('/health', {
      token: null,
      headers: { 'x-request-id': 'abc-123:xyz/1' },
    })
    expect(kept.headers['x-request-id']).toBe('abc-123:xyz/1')
    expect(kept.headers['x-correlation-id']).toBe('abc-123:xyz/1')
    const fromCorrelation = await server.request('/health', {
      token: null,
      headers: { 'x-correlation-id': 'corr.42' },
    })
    expect(fromCorrelation.headers['x-request-id']).toBe('corr.42')
    const replaced = await server.request('/health', {
      token: null,
      headers: { 'x-request-id': 'bad id with spaces' },
    })
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const tooLong = await server.request('/health', {
      token: null,
      headers: { 'x-request-id': 'a'.repeat(129) },
    })
    expect(tooLong.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const maxLength = await server.request('/health', {
      token: null,
      headers: { 'x-request-id': 'a'.repeat(128) },
    })
    expect(maxLength.headers['x-request-id']).toBe('a'.repeat(128))
  })
})
