/** Reference-write requests and the environments of the servers that take them, shared by the ref tests. */
import { ADMIN_TOKEN, TOKEN } from './harness.js'

/**
 * Write requests numbered in order: request, correlation and idempotency ids carry `prefix` and the number,
 * so a test can tell which write reached the reference.
 */
export function refWriter(prefix = '') {
  let n = 0
  const write = (operation: string, request: unknown, options: { key?: string; deadline?: number } = {}) => {
    n += 1
    return {
      contract_version: { major: 1, minor: 0 },
      context: {
        request_id: `${prefix}req-${n}`,
        correlation_id: `${prefix}corr-${n}`,
        idempotency_key: options.key ?? `${prefix}e2e-key-${n}`,
        ...(options.deadline === undefined ? {} : { deadline_unix_ms: options.deadline }),
        access: { subject_id: 'user--e2e', organization_ids: [], marking_ids: [], roles: [], attributes: {} },
        consistency: 'read_your_writes',
      },
      operation: { operation, request },
    }
  }
  return { write, count: () => n }
}

export const malware = (id: string, extra: object = {}) => ({
  id,
  type: 'malware',
  name: `Malware ${id}`,
  ...extra,
})

export const rel = (id: string, source: string, target: string) => ({
  id,
  type: 'relationship',
  relationship_type: 'uses',
  source_ref: source,
  target_ref: target,
})

/** A persistent server with the admin token and no rate limit on `/v1/ref/*` in the way. */
export const persistentRefEnv = (dir: string) => ({
  SERVICE_STORAGE_MODE: 'persistent',
  SERVICE_STORAGE_DIR: dir,
  SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
  SERVICE_REF_RATE_LIMIT_PER_SECOND: '100000',
  SERVICE_REF_RATE_LIMIT_BURST: '100000',
})

/** A persistent primary projecting to `referenceUrl` (a fault proxy), one projection in flight. */
export const projectingRefEnv = (dir: string, referenceUrl: string, extra: Record<string, string> = {}) => ({
  ...persistentRefEnv(dir),
  SERVICE_REF_SHADOW_REFERENCE_ENDPOINT: `${referenceUrl}/v1/ref/writes`,
  SERVICE_REF_SHADOW_REFERENCE_AUTH_TOKEN: TOKEN,
  SERVICE_REF_SHADOW_TIMEOUT_MS: '500',
  // One projection in flight: arrival order at the reference is then exactly sequence order.
  SERVICE_REF_SHADOW_MAX_CONCURRENCY: '1',
  ...extra,
})
