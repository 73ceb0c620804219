/** Reference write requests for tests (the `OpenCtiWriteRequest` envelope); each call takes the next number. */

let counter = 0

export function refWriteRequest(operation: string, body: unknown, key?: string, context: object = {}) {
  counter += 1
  return {
    contract_version: { major: 1, minor: 0 },
    context: {
      request_id: `req-${counter}`,
      correlation_id: `corr-${counter}`,
      idempotency_key: key ?? `ref-key-${counter}`,
      access: { subject_id: 'user--1', organization_ids: [], marking_ids: [], roles: [], attributes: {} },
      consistency: 'eventual',
      ...context,
    },
    operation: { operation, request: body },
  }
}

/** A create of a malware record with `id`. */
export const refCreate = (id: string, key?: string) =>
  refWriteRequest('create', { record: { id, type: 'malware', name: `M ${id}` } }, key)

/** A `uses` relationship record from `source` to `target`. */
export const refRelationship = (id: string, source: string, target: string) => ({
  id,
  type: 'relationship',
  relationship_type: 'uses',
  source_ref: source,
  target_ref: target,
})
