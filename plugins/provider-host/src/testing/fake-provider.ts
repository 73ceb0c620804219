import type { Domain } from '../domains.js'
import type { InvokeRequest, ProviderMetadata, ValidationResponse } from '../protocol.js'
import { DomainProvider, type ProviderBackend } from '../provider.js'

/** What a fake provider does with one request (already decoded); throw to simulate a failed call. */
export type FakeValidate = (
  request: InvokeRequest,
) =>
  | Omit<ValidationResponse, 'schema_version' | 'request_id'>
  | ValidationResponse
  | Promise<Omit<ValidationResponse, 'schema_version' | 'request_id'> | ValidationResponse>

export interface FakeProviderOptions {
  domain: Domain
  /** Default: accept everything with no issues. */
  validate?: FakeValidate
  /** Overrides of the metadata the fake declares (limits, capabilities, ids). */
  metadata?: Partial<Omit<ProviderMetadata, 'domain' | 'schema_version'>>
  /** False simulates a provider that lost readiness. */
  ready?: boolean
  /** Milliseconds each call takes (simulates a slow provider; the host's timeout still applies). */
  delayMs?: number
}

export interface FakeProviderProbe {
  /** Every request the fake received, decoded, in order. */
  readonly requests: InvokeRequest[]
  /** Calls running at once, at most (the host serialises, so 1). */
  readonly maxConcurrent: number
  readonly destroyed: number
}

const accept: FakeValidate = () => ({ status: 'accepted', issues: [], diagnostics: null })

/**
 * An in-process provider (no native code) behind the same host code path as a native one: the request is
 * encoded, bounded, queued and timed out by the host, and the reply is parsed and checked like a library's.
 */
export function fakeProvider(options: FakeProviderOptions): {
  provider: DomainProvider
  probe: FakeProviderProbe
} {
  const metadata: ProviderMetadata = {
    schema_version: '1',
    provider_id: `test.fake.${options.domain}`,
    provider_version: '0.0.0-test',
    thread_safe: false,
    max_concurrency: 1,
    max_request_bytes: 1_048_576,
    max_response_bytes: 1_048_576,
    capabilities: [{ name: 'node.validate', version: '1' }],
    ...options.metadata,
    domain: options.domain,
  }
  const validate = options.validate ?? accept
  const probe = { requests: [] as InvokeRequest[], maxConcurrent: 0, destroyed: 0 }
  let running = 0
  const backend: ProviderBackend = {
    metadata,
    async invoke(bytes) {
      running += 1
      probe.maxConcurrent = Math.max(probe.maxConcurrent, running)
      try {
        const request = JSON.parse(bytes.toString('utf8')) as InvokeRequest
        probe.requests.push(request)
        if (options.delayMs !== undefined) await new Promise((r) => setTimeout(r, options.delayMs))
        const answer = await validate(request)
        return Buffer.from(
          JSON.stringify({ schema_version: '1', request_id: request.request_id, ...answer }),
          'utf8',
        )
      } finally {
        running -= 1
      }
    },
    destroy() {
      probe.destroyed += 1
    },
  }
  return { provider: new DomainProvider(backend, { ready: options.ready ?? true }), probe }
}
