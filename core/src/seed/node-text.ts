import { PropertyMap } from '../graph/property-map.js'
import type { GraphReader, NodeRecord, PropertyValue } from '../graph/types.js'
import { memoize } from '../memo.js'
import { MEMORY_LABEL, MEMORY_SEARCH_KEYS } from '../memory/layout.js'
import { ownValue } from '../own-key.js'

/** Node ids as Cypher results and the explorer print them. */
export const nodeElementId = (id: number): string => `node--${id}`

function prop(reader: GraphReader, node: NodeRecord, key: string): PropertyValue | undefined {
  const id = reader.names.lookup(key)
  return id < 0 ? undefined : node.props.get(id)
}

/**
 * `prop` for what the index reads: every node passes through once (a whole store after a restart), so a value
 * in the payload file is read past the cache and leaves it to the queries that use it.
 */
function scanned(reader: GraphReader, node: NodeRecord, key: string): PropertyValue | undefined {
  const id = reader.names.lookup(key)
  return id < 0 ? undefined : peekProp(node, id)
}

const peekProp = (node: NodeRecord, key: number): PropertyValue | undefined =>
  node.props instanceof PropertyMap ? node.props.peek(key) : node.props.get(key)

/** Rejected and tombstoned records are never seeds (FACTS §4 candidate rule). */
export function isSearchable(reader: GraphReader, node: NodeRecord): boolean {
  const status = prop(reader, node, 'status')
  if (status === 'rejected' || status === 'tombstoned') return false
  return prop(reader, node, 'tombstoned') !== true
}

/**
 * What seed search reads of a node, by field (FACTS indexes one bag of labels and string values; we weigh
 * fields): `name` (name, aliases, external id: short and decisive), `labels` (label names, PascalCase
 * split), `body` (description and every other string value), `ids` (stix_id and ATT&CK external ids,
 * matched whole). Machine-only values are left out: the raw STIX JSON (its aliases and external ids are
 * read from it instead), timestamps, status words and evidence refs.
 */
export interface NodeFields {
  name: string[]
  labels: string[]
  body: string[]
  ids: string[]
  /** What the node's relationships say (their `description`s, see `relationshipContext`). */
  context: string[]
  /** A STIX object marked `revoked` or `x_mitre_deprecated`: kept in the graph, not offered as a seed. */
  retired: boolean
}

/** Properties that are not words an analyst searches for. */
const NOT_TEXT = new Set([
  'stix_raw',
  'evidence_raw',
  'stix_id',
  'stix_type',
  'stix_relationship_type',
  'created',
  'modified',
  'status',
  'evidence_refs',
  'evidence_id',
])
const NAME_KEYS = new Set(['name', 'title', 'aliases', 'x_mitre_aliases', 'external_id'])

interface RawStix {
  revoked?: unknown
  x_mitre_deprecated?: unknown
  aliases?: unknown
  x_mitre_aliases?: unknown
  external_references?: { source_name?: unknown; external_id?: unknown }[]
}

const strings = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []

/** PascalCase and kebab labels read as words: AttackPattern -> Attack Pattern. */
const labelWords = memoize((label) => label.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[-_]/g, ' '))

export function nodeFields(reader: GraphReader, node: NodeRecord): NodeFields {
  const f: NodeFields = { name: [], labels: [], body: [], ids: [], context: [], retired: false }
  // A memory contributes only its text, kind, tags and identity key: its label, lifecycle and times are on
  // every memory and would make every objective match all of them.
  const memory = reader.names.lookup(MEMORY_LABEL)
  const isMemory = memory >= 0 && node.labels.includes(memory)
  if (!isMemory) for (const label of node.labels) f.labels.push(labelWords(reader.names.name(label)))
  if (isMemory) return memoryFields(reader, node, f)
  // Keys first: a value left out (the raw STIX JSON, often in the payload file) is never read here.
  for (const key of node.props.keys()) {
    const name = reader.names.name(key)
    if (NOT_TEXT.has(name)) continue
    const value = peekProp(node, key)
    if (name === 'name')
      f.name.unshift(...strings(value)) // first, whatever the property order: the title
    else (NAME_KEYS.has(name) ? f.name : f.body).push(...strings(value))
  }
  relationshipContext(reader, node, f.context)
  const stixId = prop(reader, node, 'stix_id')
  if (typeof stixId === 'string') f.ids.push(stixId)
  const external = prop(reader, node, 'external_id')
  if (typeof external === 'string') f.ids.push(external)
  const raw = scanned(reader, node, 'stix_raw')
  if (typeof raw === 'string') {
    try {
      const o = JSON.parse(raw) as RawStix
      f.retired = o.revoked === true || o.x_mitre_deprecated === true
      const aliases = [...strings(o.aliases), ...strings(o.x_mitre_aliases)]
      f.name.push(...aliases.filter((a) => !f.name.includes(a)))
      for (const r of o.external_references ?? [])
        if (typeof r.external_id === 'string' && String(r.source_name).startsWith('mitre'))
          if (!f.ids.includes(r.external_id)) f.ids.push(r.external_id)
    } catch {
      // Not JSON: the raw value is simply not read.
    }
  }
  return f
}

/** Context read from a node's relationships at most (a hub's thousands of relationships cost no more). */
export const CONTEXT_MAX_CHARS = 16_384

/** The relationship property whose text joins both ends' context. */
export const CONTEXT_KEY = 'description'

/** Memory relationships keep their properties as one JSON string (memory/layout.ts): its `description` counts. */
export const CONTEXT_JSON_KEY = 'properties_json'
const CONTEXT_IN_JSON = `"${CONTEXT_KEY}"`

/** Markdown links keep their text ("[Ryuk](https://…)" -> "Ryuk"); citation markers are references, not words. */
const LINK = /\[([^\]]*)\]\([^)]*\)/g
const CITATION = /\(Citation:[^)]*\)/g

/**
 * The `description` of each relationship of the node, both directions, in relationship order, up to
 * CONTEXT_MAX_CHARS. A relationship's text says how its two ends meet ("[Wizard Spider] has used [Ryuk]
 * against hospitals", ATT&CK's procedure examples): words an analyst asks with that the node's own
 * description often lacks. Indexed as a field of its own, weighted below the body (bm25-index.ts).
 */
function relationshipContext(reader: GraphReader, node: NodeRecord, out: string[]): void {
  const key = reader.names.lookup(CONTEXT_KEY)
  const jsonKey = reader.names.lookup(CONTEXT_JSON_KEY)
  if ((key < 0 && jsonKey < 0) || (node.out.length === 0 && node.in.length === 0)) return
  const read = (rel: number, k: number) =>
    k < 0 ? undefined : reader.relProperty ? reader.relProperty(rel, k) : reader.relProps(rel)?.get(k)
  let chars = 0
  for (const rels of [node.out, node.in])
    for (const rel of rels) {
      if (chars >= CONTEXT_MAX_CHARS) return
      const v = read(rel, key) ?? describedIn(read(rel, jsonKey))
      if (typeof v !== 'string' || v === '') continue
      const text = v.replace(LINK, '$1').replace(CITATION, ' ')
      out.push(text)
      chars += text.length
    }
}

/** The `description` of a relationship's JSON properties, parsed only when the text names one. */
function describedIn(json: unknown): unknown {
  if (typeof json !== 'string' || !json.includes(CONTEXT_IN_JSON)) return undefined
  try {
    return (JSON.parse(json) as Record<string, unknown>)[CONTEXT_KEY]
  } catch {
    return undefined
  }
}

/** A title line: short, and followed by more text (a memory written as "name\ndescription"). */
const TITLE_LINE_MAX = 160

/**
 * A memory's fields: identity key, tags and its title line say what it is (the name field, weighted above the
 * body); its kind reads as a label; the rest of its text is the body. Lifecycle, times and JSON are left out.
 */
function memoryFields(reader: GraphReader, node: NodeRecord, f: NodeFields): NodeFields {
  for (const key of MEMORY_SEARCH_KEYS) {
    const value = scanned(reader, node, key)
    if (key === 'kind') f.labels.push(...strings(value).map(labelWords))
    else if (key !== 'text') f.name.push(...strings(value))
    if (key === 'identity_key') f.ids.push(...strings(value))
  }
  const text = scanned(reader, node, 'text')
  if (typeof text === 'string') {
    const cut = text.indexOf('\n')
    if (cut > 0 && cut <= TITLE_LINE_MAX) {
      f.name.unshift(text.slice(0, cut))
      f.body.push(text.slice(cut + 1))
    } else f.body.push(text)
  }
  // A memory's relationships say how it meets others, as a STIX relationship's description does.
  relationshipContext(reader, node, f.context)
  return f
}

/** The text a node is embedded from: name and aliases, then the body (not the context: see fusion.ts). */
export const embeddingText = (f: NodeFields): string => [...f.name, ...f.body].join('\n')

/** A short display title: the name, else the first alias or id, else the start of the body. */
export function nodeTitle(f: NodeFields): string | undefined {
  const first = f.name[0] ?? f.ids[f.ids.length - 1] ?? f.body[0]
  if (first === undefined) return undefined
  const line = first.split('\n')[0]?.trim() ?? ''
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line
}
const TITLE_MAX = 120

/** FACTS §4 status signal; absent or unknown status counts 0. */
const STATUS_SIGNAL: Readonly<Record<string, number>> = {
  validated: 1,
  exportable: 1,
  exported: 1,
  needs_review: 0.7,
  needs_evidence: 0.6,
  candidate: 0.5,
}

export interface NodeSignals {
  /** Relationship count (in + out). */
  degree: number
  /** `confidence` clamped to 0..1; 0.5 when absent or not a number. */
  confidence: number
  status: number
  /** The node's `evidence_refs` (string or string list), in order, then its `stix_id` (the source record). */
  sourceRefs: string[]
}

export function nodeSignals(reader: GraphReader, node: NodeRecord): NodeSignals {
  const c = prop(reader, node, 'confidence')
  const confidence = typeof c === 'number' && Number.isFinite(c) ? Math.min(1, Math.max(0, c)) : 0.5
  const s = prop(reader, node, 'status')
  const refs = prop(reader, node, 'evidence_refs')
  return {
    degree: node.out.length + node.in.length,
    confidence,
    status: typeof s === 'string' ? (ownValue(STATUS_SIGNAL, s.trim().toLowerCase()) ?? 0) : 0,
    sourceRefs: [...strings(refs), ...strings(prop(reader, node, 'stix_id'))],
  }
}
