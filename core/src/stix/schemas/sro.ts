/** STIX Relationship Objects (STIX 2.1 §5) and the meta objects (§7): markings, language content, extensions. */
import { Type } from 'typebox'
import {
  Dict,
  Enum,
  Extensions,
  ExternalReference,
  GranularMarking,
  Identifier,
  Int,
  Optional,
  Refs,
  Str,
  sdo,
  Timestamp,
  TimestampMillis,
} from './common.js'

export const SRO_SCHEMAS = [
  sdo('relationship', {
    relationship_type: Type.String({ pattern: '^[a-z0-9-]+$' }),
    description: Optional(Str),
    source_ref: Identifier(),
    target_ref: Identifier(),
    start_time: Optional(Timestamp),
    stop_time: Optional(Timestamp),
  }),
  sdo('sighting', {
    description: Optional(Str),
    first_seen: Optional(Timestamp),
    last_seen: Optional(Timestamp),
    count: Optional(Int(0, 999_999_999)),
    sighting_of_ref: Identifier(),
    observed_data_refs: Optional(Refs('observed-data')),
    where_sighted_refs: Optional(Refs()),
    summary: Optional(Type.Boolean()),
  }),
]

/** Marking definitions have no `modified`; `definition_type`/`definition` or an extension carry the marking. */
const markingDefinition = Type.Object(
  {
    type: Type.Literal('marking-definition'),
    spec_version: Type.Literal('2.1'),
    id: Identifier('marking-definition'),
    created_by_ref: Optional(Identifier('identity')),
    created: TimestampMillis,
    external_references: Optional(Type.Array(ExternalReference, { minItems: 1 })),
    object_marking_refs: Optional(Refs('marking-definition')),
    granular_markings: Optional(Type.Array(GranularMarking, { minItems: 1 })),
    extensions: Optional(Extensions),
    name: Optional(Str),
    definition_type: Optional(Str),
    definition: Optional(Dict),
  },
  { $id: 'marking-definition' },
)

export const META_SCHEMAS = [
  markingDefinition,
  sdo('language-content', {
    object_ref: Identifier(),
    object_modified: Optional(TimestampMillis),
    contents: Dict,
  }),
  sdo('extension-definition', {
    created_by_ref: Identifier('identity'),
    name: Str,
    description: Optional(Str),
    schema: Str,
    version: Str,
    extension_types: Type.Array(
      Enum(['new-sdo', 'new-sco', 'new-sro', 'property-extension', 'toplevel-property-extension']),
      { minItems: 1 },
    ),
    extension_properties: Optional(Type.Array(Str, { minItems: 1 })),
  }),
]
