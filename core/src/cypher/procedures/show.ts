import { DEFAULT_DATABASE_NAME, DEFAULT_WORKSPACE_ID } from '../../graph/catalog.js'
import type { CypherMap, Value } from '../values.js'
import type { SchemaRule } from './host.js'
import { type ProcedureDef, signatureOf } from './registry.js'

// The SHOW commands: internal procedures the parser turns `SHOW …` into, with Neo4j 5's columns.

const PROVIDERS: Record<string, string> = {
  RANGE: 'range-1.0',
  TEXT: 'text-2.0',
  POINT: 'point-1.0',
  FULLTEXT: 'fulltext-1.0',
  VECTOR: 'vector-2.0',
  LOOKUP: 'token-lookup-1.0',
}

/** JSON options (as recorded) back to a Cypher map. */
function toMap(options: Record<string, unknown>): CypherMap {
  const convert = (value: unknown): Value => {
    if (Array.isArray(value)) return value.map(convert)
    if (value !== null && typeof value === 'object') return toMap(value as Record<string, unknown>)
    if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value)
    return (value ?? null) as Value
  }
  return new Map(Object.entries(options).map(([key, value]) => [key, convert(value)]))
}

const quote = (name: string) => `\`${name.replaceAll('`', '``')}\``

/** The statement that recreates a rule, as Neo4j lists it. */
function createStatement(rule: SchemaRule): string {
  const target =
    rule.entityType === 'NODE'
      ? `(n:${rule.labelsOrTypes.map(quote).join('|')})`
      : `()-[r:${rule.labelsOrTypes.map(quote).join('|')}]-()`
  const v = rule.entityType === 'NODE' ? 'n' : 'r'
  const props = rule.properties.map((p) => `${v}.${quote(p)}`).join(', ')
  if (rule.kind === 'constraint') {
    const requirement =
      rule.type === 'NODE_PROPERTY_EXISTENCE'
        ? 'IS NOT NULL'
        : rule.type === 'NODE_KEY'
          ? 'IS NODE KEY'
          : rule.type === 'NODE_PROPERTY_TYPE'
            ? `IS :: ${rule.propertyType}`
            : 'IS UNIQUE'
    return `CREATE CONSTRAINT ${quote(rule.name)} FOR ${target} REQUIRE (${props}) ${requirement}`
  }
  const on = rule.type === 'FULLTEXT' ? `ON EACH [${props}]` : `ON (${props})`
  return `CREATE ${rule.type} INDEX ${quote(rule.name)} FOR ${target} ${on}`
}

const field = (name: string, type = 'STRING') => ({ name, type })
const describe = (fields: { name: string; type: string }[]): CypherMap[] =>
  fields.map(
    (f) =>
      new Map<string, Value>([
        ['name', f.name],
        ['type', f.type],
        ['description', `${f.name} :: ${f.type}`],
      ]),
  )

export const SHOW_PROCEDURES: ProcedureDef[] = [
  {
    name: 'show.procedures',
    internal: true,
    description: 'SHOW PROCEDURES',
    mode: 'DBMS',
    params: [],
    outputs: [
      field('name'),
      field('description'),
      field('mode'),
      field('worksOnSystem', 'BOOLEAN'),
      field('signature'),
      field('argumentDescription', 'LIST<MAP>'),
      field('returnDescription', 'LIST<MAP>'),
      field('admin', 'BOOLEAN'),
      field('isDeprecated', 'BOOLEAN'),
    ],
    defaultOutputs: ['name', 'description', 'mode', 'worksOnSystem'],
    run: (_args, ctx) =>
      ctx.host
        .procedures()
        .map((def) => [
          def.name,
          def.description,
          def.mode,
          def.mode === 'DBMS',
          signatureOf(def),
          describe(def.params),
          describe(def.outputs),
          false,
          false,
        ]),
  },
  {
    name: 'show.functions',
    internal: true,
    description: 'SHOW FUNCTIONS',
    mode: 'DBMS',
    params: [],
    outputs: [
      field('name'),
      field('category'),
      field('description'),
      field('signature'),
      field('isBuiltIn', 'BOOLEAN'),
      field('aggregating', 'BOOLEAN'),
      field('isDeprecated', 'BOOLEAN'),
    ],
    defaultOutputs: ['name', 'category', 'description'],
    run: (_args, ctx) =>
      ctx.host
        .functions()
        .map((fn) => [
          fn.name,
          fn.category,
          fn.description,
          fn.signature,
          !fn.name.startsWith('apoc.'),
          fn.aggregating,
          false,
        ]),
  },
  {
    name: 'show.indexes',
    internal: true,
    description: 'SHOW INDEXES',
    mode: 'SCHEMA',
    params: [],
    outputs: [
      field('id', 'INTEGER'),
      field('name'),
      field('state'),
      field('populationPercent', 'FLOAT'),
      field('type'),
      field('entityType'),
      field('labelsOrTypes', 'LIST<STRING>'),
      field('properties', 'LIST<STRING>'),
      field('indexProvider'),
      field('owningConstraint'),
      field('lastRead'),
      field('readCount', 'INTEGER'),
      field('options', 'MAP'),
      field('createStatement'),
    ],
    defaultOutputs: [
      'id',
      'name',
      'state',
      'populationPercent',
      'type',
      'entityType',
      'labelsOrTypes',
      'properties',
      'indexProvider',
      'owningConstraint',
      'lastRead',
      'readCount',
    ],
    // The store keeps a label index of every node (Neo4j's node LOOKUP index); declared indexes and the
    // indexes uniqueness and key constraints own follow. Property lookups are indexed by the store on demand.
    run: (_args, ctx) => {
      const rows: Value[][] = [
        [
          1n,
          'index_node_label_lookup',
          'ONLINE',
          100,
          'LOOKUP',
          'NODE',
          null,
          null,
          'token-lookup-1.0',
          null,
          null,
          null,
          new Map(),
          'CREATE LOOKUP INDEX `index_node_label_lookup` FOR (n) ON EACH labels(n)',
        ],
      ]
      for (const rule of ctx.host.schemaRules()) {
        const owned = rule.kind === 'constraint' && (rule.type === 'UNIQUENESS' || rule.type === 'NODE_KEY')
        if (rule.kind !== 'index' && !owned) continue
        const type = owned ? 'RANGE' : rule.type
        rows.push([
          BigInt(rule.id),
          rule.name,
          'ONLINE',
          100,
          type,
          rule.entityType,
          rule.labelsOrTypes,
          rule.properties,
          PROVIDERS[type] ?? 'range-1.0',
          owned ? rule.name : null,
          null,
          null,
          toMap(rule.options),
          createStatement(rule),
        ])
      }
      return rows
    },
  },
  {
    name: 'show.constraints',
    internal: true,
    description: 'SHOW CONSTRAINTS',
    mode: 'SCHEMA',
    params: [],
    outputs: [
      field('id', 'INTEGER'),
      field('name'),
      field('type'),
      field('entityType'),
      field('labelsOrTypes', 'LIST<STRING>'),
      field('properties', 'LIST<STRING>'),
      field('ownedIndex'),
      field('propertyType'),
    ],
    run: (_args, ctx) =>
      ctx.host
        .schemaRules()
        .filter((rule) => rule.kind === 'constraint')
        .map((rule) => [
          BigInt(rule.id),
          rule.name,
          rule.type,
          rule.entityType,
          rule.labelsOrTypes,
          rule.properties,
          rule.type === 'UNIQUENESS' || rule.type === 'NODE_KEY' ? rule.name : null,
          rule.propertyType ?? null,
        ]),
  },
  {
    name: 'show.databases',
    internal: true,
    description: 'SHOW DATABASES',
    mode: 'DBMS',
    params: [],
    outputs: [
      field('name'),
      field('type'),
      field('aliases', 'LIST<STRING>'),
      field('access'),
      field('address'),
      field('role'),
      field('writer', 'BOOLEAN'),
      field('requestedStatus'),
      field('currentStatus'),
      field('statusMessage'),
      field('default', 'BOOLEAN'),
      field('home', 'BOOLEAN'),
      field('constituents', 'LIST<STRING>'),
    ],
    defaultOutputs: [
      'name',
      'type',
      'aliases',
      'access',
      'address',
      'role',
      'writer',
      'requestedStatus',
      'currentStatus',
      'statusMessage',
      'default',
      'home',
      'constituents',
    ],
    // Databases are workspaces. The default workspace is the default (and home) database under the name
    // Neo4j tools expect, `neo4j` (DECISIONS: a Bolt database `neo4j` is the default workspace), its id an alias.
    run: (_args, ctx) => {
      const ids = new Set([DEFAULT_WORKSPACE_ID, ...ctx.host.workspaceIds()])
      return [...ids].sort().map((id) => {
        const isDefault = id === DEFAULT_WORKSPACE_ID
        return [
          isDefault ? DEFAULT_DATABASE_NAME : id,
          'standard',
          isDefault ? [DEFAULT_WORKSPACE_ID] : [],
          'read-write',
          null,
          'primary',
          true,
          'online',
          'online',
          '',
          isDefault,
          isDefault,
          [],
        ]
      })
    },
  },
]
