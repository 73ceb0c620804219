import { MEMORY_OPERATIONS } from '@service/core'
import { Nullable, StringEnum } from '@service/plugin-errors'
import { Type } from 'typebox'

/**
 * The documented request shape. The engine validates it (strictly, in the contract's own order: permission,
 * then shape, then idempotency), so both doors refuse the same requests with the same codes.
 */
export const MemoryOperationRequest = Type.Object(
  {
    contract_version: Type.Literal('v1'),
    idempotency_key: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 256,
          description: 'Required for remember, relate, update, forget and consolidate apply_approved.',
        }),
      ),
    ),
    operation: StringEnum(MEMORY_OPERATIONS),
    input: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The operation input (README: memory).',
    }),
  },
  {
    $id: 'MemoryOperationRequest',
    additionalProperties: false,
    description:
      'Workspace, actor, agent, session, permissions and correlation come from the trusted host context.',
  },
)

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
