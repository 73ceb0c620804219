import { Nullable, okEnvelope, StringEnum } from '@service/plugin-errors'
import { type Static, Type } from 'typebox'

export const CypherRequestBody = Type.Object(
  {
    query: Type.String({ description: 'Cypher text; parameters are bound structurally, never spliced.' }),
    params: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Scalars, lists and maps; temporal values and points as one-key tagged objects such as {"$date": "2024-05-01"} (docs/cypher-temporal.md) or {"$point": {"crs": "wgs-84", "longitude": 12.5, "latitude": 55.6}} (docs/cypher-spatial.md).',
      }),
    ),
    mode: Type.Optional(
      Type.String({ description: 'read | write | validate | auto (execute only; others ignore it)' }),
    ),
    workspace_id: Type.Optional(Type.String()),
    session_id: Type.Optional(Type.String()),
    budget_ref: Type.Optional(Type.String()),
  },
  { $id: 'CypherRequest', additionalProperties: false },
)
export type CypherRequestBody = Static<typeof CypherRequestBody>

const Counter = Type.Integer({ minimum: 0 })

export const CypherResultSchema = Type.Object(
  {
    status: StringEnum(['Success', 'Rejected', 'ValidationFailed']),
    data: Nullable(
      Type.Object({ columns: Type.Array(Type.String()), rows: Type.Array(Type.Array(Type.Unknown())) }),
    ),
    mutation_summary: Type.Object(
      {
        created_nodes: Counter,
        deleted_nodes: Counter,
        created_relationships: Counter,
        deleted_relationships: Counter,
        properties_set: Counter,
        labels_added: Counter,
        labels_removed: Counter,
      },
      { additionalProperties: Counter },
    ),
    validation_errors: Type.Array(
      Type.Object({
        code: Type.String(),
        message: Type.String(),
        /** The Neo4j status code it corresponds to, for clients that match on Neo4j's codes. */
        neo4j_code: Type.String(),
        field: Type.Optional(Type.String()),
        position: Type.Optional(
          Type.Object({ line: Type.Integer(), column: Type.Integer(), offset: Type.Integer() }),
        ),
      }),
    ),
    warnings: Type.Array(Type.String()),
  },
  { $id: 'CypherResult' },
)

export const CypherResponse = okEnvelope(CypherResultSchema)
