/** TAXII 2.1 resources (section 4 and 5 of the specification), for validation and the OpenAPI document. */
import { Type } from 'typebox'

const Strings = Type.Array(Type.String())

export const TaxiiError = Type.Object(
  {
    title: Type.String(),
    description: Type.Optional(Type.String()),
    error_id: Type.Optional(Type.String()),
    error_code: Type.Optional(Type.String()),
    http_status: Type.Optional(Type.String()),
  },
  { $id: 'TaxiiError', description: 'TAXII 2.1 error message (section 3.6.1)' },
)

export const Discovery = Type.Object({
  title: Type.String(),
  description: Type.Optional(Type.String()),
  default: Type.Optional(Type.String()),
  api_roots: Strings,
})

export const ApiRoot = Type.Object({
  title: Type.String(),
  description: Type.Optional(Type.String()),
  versions: Strings,
  max_content_length: Type.Integer(),
})

export const Collection = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  can_read: Type.Boolean(),
  can_write: Type.Boolean(),
  media_types: Strings,
})

export const Collections = Type.Object({ collections: Type.Optional(Type.Array(Collection)) })

const StixObject = Type.Object({ type: Type.String(), id: Type.String() }, { additionalProperties: true })

export const Envelope = Type.Object({
  more: Type.Optional(Type.Boolean()),
  next: Type.Optional(Type.String()),
  objects: Type.Optional(Type.Array(StixObject)),
})

export const Manifest = Type.Object({
  more: Type.Optional(Type.Boolean()),
  next: Type.Optional(Type.String()),
  objects: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        date_added: Type.String(),
        version: Type.String(),
        media_type: Type.String(),
      }),
    ),
  ),
})

export const Versions = Type.Object({
  more: Type.Optional(Type.Boolean()),
  next: Type.Optional(Type.String()),
  versions: Type.Optional(Strings),
})

const StatusDetails = Type.Array(
  Type.Object({ id: Type.String(), version: Type.String(), message: Type.Optional(Type.String()) }),
)

export const Status = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('complete')]),
  request_timestamp: Type.String(),
  total_count: Type.Integer(),
  success_count: Type.Integer(),
  successes: StatusDetails,
  failure_count: Type.Integer(),
  failures: StatusDetails,
  pending_count: Type.Integer(),
  pendings: StatusDetails,
})

const QueryValue = Type.Union([Type.String(), Strings])

/**
 * The query string of the object endpoints (TAXII 2.1 section 3.4). The filters are named so the OpenAPI
 * document (and the typed client made from it) lists them; core checks which ones an endpoint accepts and
 * refuses an unknown `match[...]`, so other names pass through to it.
 */
export const FilterQuery = Type.Object(
  {
    added_after: Type.Optional(QueryValue),
    limit: Type.Optional(QueryValue),
    next: Type.Optional(QueryValue),
    'match[id]': Type.Optional(QueryValue),
    'match[type]': Type.Optional(QueryValue),
    'match[version]': Type.Optional(QueryValue),
    'match[spec_version]': Type.Optional(QueryValue),
  },
  { additionalProperties: QueryValue },
)

export const CollectionParams = Type.Object({ collectionId: Type.String({ maxLength: 256 }) })
export const ObjectParams = Type.Object({
  collectionId: Type.String({ maxLength: 256 }),
  objectId: Type.String({ maxLength: 512 }),
})
export const StatusParams = Type.Object({ statusId: Type.String({ maxLength: 256 }) })

/** Error statuses of the TAXII routes, all answered as TAXII error messages. */
export const taxiiErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, TaxiiError]))
