/**
 * The reference-platform write request (FACTS §8, schema `OpenCtiWriteRequest` of the reference OpenAPI):
 * `{contract_version, context, operation: {operation, request}}`. TypeBox schemas give validation and types;
 * the HTTP plugin documents the same shapes.
 */
import { type Static, Type } from 'typebox'
import { Compile } from 'typebox/compile'

export const WRITE_OPERATIONS = ['create', 'update', 'delete', 'bulk', 'merge'] as const
export type WriteOperationName = (typeof WRITE_OPERATIONS)[number]
export const CONSISTENCY_LEVELS = ['eventual', 'read_your_writes', 'snapshot'] as const

const NonEmpty = Type.String({ minLength: 1 })
const Revision = Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])
// Any JSON object: what `Type.Record(Type.String(), Type.Unknown())` accepts, checked without walking its
// entries (that check built an entries array per record: 5,000 of them in the largest bulk write).
const Record_ = Type.Unsafe<Record<string, unknown>>({ type: 'object' })

export const RefAccess = Type.Object({
  subject_id: NonEmpty,
  organization_ids: Type.Array(Type.String()),
  marking_ids: Type.Array(Type.String()),
  tenant_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  roles: Type.Array(Type.String()),
  attributes: Type.Record(Type.String(), Type.String()),
})

export const RefWriteContext = Type.Object({
  request_id: NonEmpty,
  correlation_id: NonEmpty,
  idempotency_key: NonEmpty,
  deadline_unix_ms: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  cancellation_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  access: RefAccess,
  consistency: Type.Union(CONSISTENCY_LEVELS.map((c) => Type.Literal(c))),
})

const CreateRequest = Type.Object({ record: Record_ })
const UpdateRequest = Type.Object({
  id: NonEmpty,
  expected_revision: Type.Optional(Revision),
  patch: Record_,
})
const DeleteRequest = Type.Object({ id: NonEmpty, expected_revision: Type.Optional(Revision) })
const MergeRequest = Type.Object({
  target_id: NonEmpty,
  source_ids: Type.Array(NonEmpty, { minItems: 1, uniqueItems: true }),
  expected_revisions: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1 }))),
})

const OperationId = Type.Optional(NonEmpty)
export const BulkItem = Type.Union([
  Type.Object({ operation: Type.Literal('create'), operation_id: OperationId, record: Record_ }),
  Type.Object({
    operation: Type.Union([Type.Literal('update'), Type.Literal('access_policy_update')]),
    operation_id: OperationId,
    id: NonEmpty,
    expected_revision: Type.Optional(Revision),
    patch: Record_,
  }),
  Type.Object({
    operation: Type.Literal('delete'),
    operation_id: OperationId,
    id: NonEmpty,
    expected_revision: Type.Optional(Revision),
  }),
])
const BulkRequest = Type.Object({ operations: Type.Array(BulkItem, { minItems: 1 }), atomic: Type.Boolean() })

export const RefWriteOperation = Type.Union([
  Type.Object({ operation: Type.Literal('create'), request: CreateRequest }),
  Type.Object({ operation: Type.Literal('update'), request: UpdateRequest }),
  Type.Object({ operation: Type.Literal('delete'), request: DeleteRequest }),
  Type.Object({ operation: Type.Literal('bulk'), request: BulkRequest }),
  Type.Object({ operation: Type.Literal('merge'), request: MergeRequest }),
])

export const RefWriteRequest = Type.Object({
  contract_version: Type.Object({ major: Type.Literal(1), minor: Type.Integer({ minimum: 0 }) }),
  context: RefWriteContext,
  operation: RefWriteOperation,
})

export type RefWriteRequest = Static<typeof RefWriteRequest>
export type RefWriteContext = Static<typeof RefWriteContext>
export type RefWriteOperation = Static<typeof RefWriteOperation>
export type BulkItem = Static<typeof BulkItem>
export type MergeRequest = Static<typeof MergeRequest>

const checkRequest = Compile(RefWriteRequest)

/** The first schema error of `value` as one readable line, or null when it conforms. */
function firstProblem(check: typeof checkRequest | typeof checkDescriptor, value: unknown, prefix: string) {
  if (check.Check(value)) return null
  for (const error of check.Errors(value)) {
    const path = (error as { instancePath?: string }).instancePath || '/'
    return `${prefix}${path}: ${error.message}`
  }
  return `${prefix} does not match its schema`
}

/** One checker per operation and per bulk item kind, so an error names the branch the caller meant. */
const checkOperation: Readonly<Record<string, typeof checkRequest>> = {
  create: Compile(CreateRequest),
  update: Compile(UpdateRequest),
  delete: Compile(DeleteRequest),
  bulk: Compile(BulkRequest),
  merge: Compile(MergeRequest),
}
const checkBulkItem: Readonly<Record<string, typeof checkRequest>> = Object.fromEntries(
  BulkItem.anyOf.flatMap((branch) => {
    const op = branch.properties.operation
    const names = 'anyOf' in op ? op.anyOf.map((l) => l.const) : [op.const]
    return names.map((name) => [name, Compile(branch)])
  }),
)

/**
 * The first schema problem of a write request, as one readable line, or null. A union's own error ("must be
 * equal to constant" at the discriminator) says nothing useful, so the branch named by `operation` is checked
 * on its own first: a bad patch in an update is reported at the patch.
 */
export function requestProblem(body: unknown): string | null {
  if (checkRequest.Check(body)) return null
  const operation = (body as { operation?: { operation?: unknown; request?: unknown } } | null)?.operation
  const name = operation?.operation
  const branch =
    typeof name === 'string' && Object.hasOwn(checkOperation, name) ? checkOperation[name] : undefined
  if (branch !== undefined && !branch.Check(operation?.request)) {
    const items = (operation?.request as { operations?: unknown } | undefined)?.operations
    if (name === 'bulk' && Array.isArray(items))
      for (const [i, item] of items.entries()) {
        const kind = (item as { operation?: unknown } | null)?.operation
        const check =
          typeof kind === 'string' && Object.hasOwn(checkBulkItem, kind) ? checkBulkItem[kind] : undefined
        if (check !== undefined && !check.Check(item))
          return firstProblem(check, item, `/operation/request/operations/${i}`)
      }
    return firstProblem(branch, operation?.request, '/operation/request')
  }
  return firstProblem(checkRequest, body, '')
}

/** The rollback triggers an operator may declare (spec, write authority). */
export const ROLLBACK_TRIGGERS = [
  'security_divergence',
  'corruption',
  'latency_regression',
  'migration_failure',
  'write_divergence',
  'reference_availability',
] as const
export type RollbackTrigger = (typeof ROLLBACK_TRIGGERS)[number]

export const WRITE_AUTHORITIES = ['service_primary', 'writes_suspended', 'reference_primary'] as const
export type WriteAuthority = (typeof WRITE_AUTHORITIES)[number]

/** File command (FACTS §8 files): enqueue a content-extraction job or delete projections by file id. */
const AccessList = Type.Optional(Type.Array(Type.String()))
export const FileDescriptor = Type.Object(
  {
    file_id: NonEmpty,
    source_object_id: NonEmpty,
    blob_key: NonEmpty,
    name: NonEmpty,
    mime_type: NonEmpty,
    content_hash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    version: Type.Integer({ minimum: 1 }),
    access: Type.Optional(
      Type.Object({
        marking_ids: AccessList,
        organization_ids: AccessList,
        authorized_members: AccessList,
        tenant_ids: AccessList,
        creator_ids: AccessList,
        owner_ids: AccessList,
        sharing_policy: Type.Optional(Type.String()),
        authorized_authorities: AccessList,
      }),
    ),
  },
  { additionalProperties: false },
)
export type FileDescriptor = Static<typeof FileDescriptor>
const checkDescriptor = Compile(FileDescriptor)

export const descriptorProblem = (descriptor: unknown): string | null =>
  firstProblem(checkDescriptor, descriptor, 'descriptor')
