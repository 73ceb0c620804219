import { okEnvelope } from '@service/plugin-errors'
import { type Static, Type } from 'typebox'

export const SeedSearchBody = Type.Object(
  {
    objective: Type.String({ description: 'What the analyst is looking for, in plain words.' }),
    workspace_id: Type.Optional(Type.String({ description: 'Default: the HTTP default workspace.' })),
    domain_profile: Type.Optional(
      Type.String({
        description: 'cti | fimi | crisis | cross_domain (default); cti/fimi/crisis are gated.',
      }),
    ),
    mode: Type.Optional(Type.String({ description: 'hybrid (default) | full_text | semantic | vector' })),
    // Numbers, not integers, in the schema: the service answers top_k 0 or 1.5 with INVALID_SEED_REQUEST.
    top_k: Type.Optional(Type.Number({ description: 'Integer >= 1, default 10.' })),
    score_threshold: Type.Optional(Type.Number({ description: 'Within [0, 1], default 0.0.' })),
  },
  { $id: 'SeedSearchRequest', additionalProperties: false },
)
export type SeedSearchBody = Static<typeof SeedSearchBody>

export const SeedCandidateSchema = Type.Object(
  {
    node_id: Type.String(),
    score: Type.Number(),
    explanation: Type.Object({
      rationale: Type.String(),
      source_refs: Type.Array(Type.String()),
      boundary_notes: Type.Array(Type.String()),
    }),
    labels: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Optional display field: the node labels (not in the spec).',
      }),
    ),
    title: Type.Optional(
      Type.String({
        description:
          'Optional display field: a short title (name, else first alias or id, else the start of the text).',
      }),
    ),
  },
  { $id: 'SeedCandidate' },
)

export const SeedSearchResponse = okEnvelope(Type.Object({ candidates: Type.Array(SeedCandidateSchema) }))
