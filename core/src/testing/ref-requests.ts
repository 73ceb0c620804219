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

/**
 * The operations of a bulk create: `nodes` malware records (`malware--<prefix><i>`, every fourth with a
 * description) then `rels` relationships between them; enough of each makes a commit log columnar runs.
 */
export function refBulkCreates(prefix: string, nodes: number, rels: number) {
  const node = (i: number) => `malware--${prefix}${i % nodes}`
  return [
    ...Array.from({ length: nodes }, (_, i) => ({
      operation: 'create',
      record: {
        id: node(i),
        type: 'malware',
        name: `M ${node(i)}`,
        ...(i % 4 === 0 ? { description: `d ${i}` } : {}),
      },
    })),
    ...Array.from({ length: rels }, (_, i) => ({
      operation: 'create',
      record: refRelationship(`relationship--${prefix}${i}`, node(i), node(i * 7 + 3)),
    })),
  ]
}
