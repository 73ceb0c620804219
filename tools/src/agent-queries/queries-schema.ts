import type { BundleFacts } from './bundle-facts.js'
import type { AgentQuery, Rows } from './query-set.js'

/**
 * What tools send on connect and to learn the schema: LangChain's `Neo4jGraph` (apoc.meta.data), the Neo4j MCP
 * server (apoc.meta.schema), neo4j-graphrag and Browser (db.* procedures, SHOW commands).
 */

const allLabels = (f: BundleFacts): string[] =>
  [...new Set([...f.nodes.values()].flatMap((n) => n.labels))].sort()
const allTypes = (f: BundleFacts): string[] => [...new Set(f.rels.map((r) => r.type))].sort()

/** Node property keys present per label, as the import stores them. */
function keysByLabel(f: BundleFacts): Map<string, Set<string>> {
  const byLabel = new Map<string, Set<string>>()
  for (const n of f.nodes.values()) {
    const keys = ['stix_id', 'stix_type', 'stix_raw', 'status']
    for (const k of ['name', 'description', 'created', 'modified', 'external_id'] as const) {
      if (n[k] !== undefined) keys.push(k)
    }
    for (const label of n.labels) {
      const set = byLabel.get(label) ?? new Set<string>()
      for (const k of keys) set.add(k)
      byLabel.set(label, set)
    }
  }
  return byLabel
}

const EXCLUDED = ['_Bloom_Perspective_', '_Bloom_Scene_']

/** LangChain's three schema queries, as `Neo4jGraph.refreshSchema` sends them. */
const LANGCHAIN_NODE_PROPERTIES = `CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE NOT type = "RELATIONSHIP" AND elementType = "node"
  AND NOT label IN $EXCLUDED_LABELS
WITH label AS nodeLabels, collect({property:property, type:type}) AS properties
RETURN {labels: nodeLabels, properties: properties} AS output`

const LANGCHAIN_REL_PROPERTIES = `CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE NOT type = "RELATIONSHIP" AND elementType = "relationship"
      AND NOT label in $EXCLUDED_LABELS
WITH label AS nodeLabels, collect({property:property, type:type}) AS properties
RETURN {type: nodeLabels, properties: properties} AS output`

const LANGCHAIN_RELATIONSHIPS = `CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE type = "RELATIONSHIP" AND elementType = "node"
UNWIND other AS other_node
WITH * WHERE NOT label IN $EXCLUDED_LABELS
    AND NOT other_node IN $EXCLUDED_LABELS
RETURN {start: label, type: property, end: toString(other_node)} AS output`

function checkNodeProperties(rows: Rows, _columns: string[], f: BundleFacts): string | null {
  const expected = keysByLabel(f)
  const seen = new Map<string, Set<string>>()
  for (const [output] of rows) {
    const o = output as { labels: string; properties: { property: string; type: string }[] }
    if (seen.has(o.labels)) return `label ${o.labels} reported twice`
    seen.set(o.labels, new Set(o.properties.map((p) => `${p.property}:${p.type}`)))
  }
  for (const [label, keys] of expected) {
    const got = seen.get(label)
    if (!got) return `label ${label} missing`
    const want = [...keys].map((k) => `${k}:STRING`).sort()
    if (JSON.stringify([...got].sort()) !== JSON.stringify(want)) return `${label}: ${[...got]} != ${want}`
  }
  return seen.size === expected.size ? null : `${seen.size} labels reported, ${expected.size} exist`
}

function checkRelProperties(rows: Rows, _columns: string[], f: BundleFacts): string | null {
  const types = new Set(rows.map(([o]) => (o as { type: string }).type))
  for (const t of allTypes(f)) if (!types.has(t)) return `relationship type ${t} missing`
  for (const [o] of rows) {
    const props = (o as { properties: { property: string; type: string }[] }).properties.map(
      (p) => p.property,
    )
    if (!props.includes('stix_id') || !props.includes('stix_relationship_type')) return `properties ${props}`
  }
  return types.size === allTypes(f).length ? null : `types ${[...types]}`
}

function expectedTriples(f: BundleFacts): string[] {
  const triples = new Set<string>()
  for (const r of f.rels) {
    const s = f.nodes.get(r.source)
    const t = f.nodes.get(r.target)
    if (!s || !t) continue
    for (const a of s.labels) for (const b of t.labels) triples.add(`${a}-${r.type}->${b}`)
  }
  return [...triples].sort()
}

function checkTriples(rows: Rows): (f: BundleFacts) => string | null {
  return (f) => {
    const got = [
      ...new Set(
        rows.map(([o]) => {
          const t = o as { start: string; type: string; end: string }
          return `${t.start}-${t.type}->${t.end}`
        }),
      ),
    ].sort()
    const want = expectedTriples(f)
    const missing = want.filter((t) => !got.includes(t))
    const extra = got.filter((t) => !want.includes(t))
    return missing.length + extra.length === 0
      ? null
      : `missing ${missing.slice(0, 3)}; extra ${extra.slice(0, 3)}`
  }
}

export const SCHEMA_QUERIES: AgentQuery[] = [
  {
    id: 'schema-labels',
    style: 'browser-guide',
    feature: 'procedure',
    query: 'CALL db.labels() YIELD label RETURN label ORDER BY label',
    ordered: true,
    expect: (f) => allLabels(f).map((l) => [l]),
  },
  {
    id: 'schema-rel-types',
    style: 'browser-guide',
    feature: 'procedure',
    query:
      'CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType ORDER BY relationshipType',
    ordered: true,
    expect: (f) => allTypes(f).map((t) => [t]),
  },
  {
    id: 'schema-property-keys',
    style: 'graphrag',
    feature: 'procedure',
    query:
      'CALL db.propertyKeys() YIELD propertyKey WHERE propertyKey IN ["name", "external_id", "stix_raw"] RETURN propertyKey ORDER BY propertyKey',
    ordered: true,
    expect: () => [['external_id'], ['name'], ['stix_raw']],
  },
  {
    id: 'schema-components',
    style: 'langchain',
    feature: 'procedure',
    query:
      'CALL dbms.components() YIELD name, versions, edition UNWIND versions AS version RETURN name, version, edition',
    check: (rows) => {
      if (rows.length !== 1) return `${rows.length} rows`
      const [name, version, edition] = rows[0] as [unknown, unknown, unknown]
      if (name !== 'Neo4j Kernel') return `name ${name} (tools look for "Neo4j Kernel")`
      if (typeof version !== 'string' || !/^5\.\d+/.test(version))
        return `version ${version} (tools parse 5.x)`
      return typeof edition === 'string' ? null : `edition ${edition}`
    },
  },
  {
    id: 'langchain-node-properties',
    style: 'langchain',
    feature: 'apoc',
    query: LANGCHAIN_NODE_PROPERTIES,
    params: { EXCLUDED_LABELS: EXCLUDED },
    check: checkNodeProperties,
  },
  {
    id: 'langchain-rel-properties',
    style: 'langchain',
    feature: 'apoc',
    query: LANGCHAIN_REL_PROPERTIES,
    params: { EXCLUDED_LABELS: EXCLUDED },
    check: checkRelProperties,
  },
  {
    id: 'langchain-relationships',
    style: 'langchain',
    feature: 'apoc',
    query: LANGCHAIN_RELATIONSHIPS,
    params: { EXCLUDED_LABELS: EXCLUDED },
    check: (rows, _c, f) => checkTriples(rows)(f),
  },
  {
    id: 'mcp-meta-schema',
    style: 'mcp-neo4j',
    feature: 'apoc',
    query: 'CALL apoc.meta.schema() YIELD value RETURN value',
    check: (rows, _c, f) => {
      const value = rows[0]?.[0] as
        | Record<string, { type: string; count: number; properties: object }>
        | undefined
      if (!value) return 'no value'
      const malware = value.Malware
      if (malware?.type !== 'node') return `Malware: ${JSON.stringify(malware)?.slice(0, 100)}`
      if (malware.count !== f.withLabel('Malware').length) return `Malware count ${malware.count}`
      const name = (malware.properties as Record<string, { type: string }>).name
      if (name?.type !== 'STRING') return `Malware.name ${JSON.stringify(name)}`
      return value.Uses?.type === 'relationship' ? null : `Uses: ${JSON.stringify(value.Uses)?.slice(0, 100)}`
    },
  },
  {
    id: 'schema-visualization',
    style: 'browser-guide',
    feature: 'procedure',
    query:
      'CALL db.schema.visualization() YIELD nodes, relationships RETURN [n IN nodes | n.name] AS labels, size(relationships) > 0 AS linked',
    sortLists: true,
    expect: (f) => [[allLabels(f), true]],
  },
  {
    id: 'schema-node-type-properties',
    style: 'graphrag',
    feature: 'procedure',
    query: `CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName, propertyTypes
WHERE 'Campaign' IN nodeLabels AND propertyName = 'name' RETURN propertyTypes`,
    expect: () => [[['String']]],
  },
  {
    id: 'show-procedures',
    style: 'mcp-neo4j',
    feature: 'show',
    query:
      "SHOW PROCEDURES YIELD name WHERE name IN ['db.labels', 'apoc.meta.data', 'db.index.fulltext.queryNodes'] RETURN name ORDER BY name",
    ordered: true,
    expect: () => [['apoc.meta.data'], ['db.index.fulltext.queryNodes'], ['db.labels']],
  },
  {
    id: 'show-functions',
    style: 'text2cypher',
    feature: 'show',
    query:
      "SHOW FUNCTIONS YIELD name WHERE name IN ['toUpper', 'apoc.convert.fromJsonMap', 'date.truncate'] RETURN name ORDER BY name",
    ordered: true,
    expect: () => [['apoc.convert.fromJsonMap'], ['date.truncate'], ['toUpper']],
  },
  {
    id: 'show-databases',
    style: 'browser-guide',
    feature: 'show',
    query: 'SHOW DATABASES YIELD name, currentStatus WHERE name = "neo4j" RETURN name, currentStatus',
    expect: () => [['neo4j', 'online']],
  },
  {
    id: 'show-indexes',
    style: 'graphrag',
    feature: 'show',
    query: 'SHOW INDEXES YIELD name, type WHERE type = "LOOKUP" RETURN count(*) AS lookups',
    check: (rows) => (typeof rows[0]?.[0] === 'number' ? null : `rows ${JSON.stringify(rows)}`),
  },
]
