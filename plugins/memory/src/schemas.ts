import { MEMORY_INPUT_SCHEMAS, MEMORY_OPERATIONS, MemoryIdempotencyKeySchema } from '@service/core'
import { StringEnum } from '@service/plugin-errors'
import { Type } from 'typebox'

const MUTATIONS = new Set(['remember', 'relate', 'update', 'forget', 'consolidate'])

/** One request shape per operation, its `input` the core schema that validates it. */
const operationRequest = (operation: (typeof MEMORY_OPERATIONS)[number]) =>
  Type.Object(
    {
      contract_version: Type.Literal('v1'),
      idempotency_key: Type.Optional(
        Type.Union([
          Type.String({
            ...MemoryIdempotencyKeySchema,
            description: MUTATIONS.has(operation)
              ? 'Required (consolidate: for apply_approved). The same key and request replay the receipt.'
              : 'Not used by this read.',
          }),
          Type.Null(),
        ]),
      ),
      operation: Type.Literal(operation),
      input: MEMORY_INPUT_SCHEMAS[operation],
    },
    { additionalProperties: false, title: `${operation} request` },
  )

/**
 * The documented request shape. The engine validates it with the same schemas (strictly, in the contract's own
 * order: permission, then shape, then idempotency), so both doors refuse the same requests with the same codes.
 */
export const MemoryOperationRequest = Type.Union(MEMORY_OPERATIONS.map(operationRequest), {
  $id: 'MemoryOperationRequest',
  description:
    'Workspace, actor, agent, session, permissions and correlation come from the trusted host context.',
})

export const MemoryOperationResponse = Type.Object(
  {
    ok: Type.Literal(true),
    contract_version: Type.Literal('v1'),
    result: Type.Object({
      operation: StringEnum([...MEMORY_OPERATIONS, 'update_relationship']),
      result: Type.Record(Type.String(), Type.Unknown()),
    }),
  },
  { $id: 'MemoryOperationResponse' },
)
