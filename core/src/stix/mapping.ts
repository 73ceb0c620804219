/**
 * How STIX objects land in the graph. Every STIX node carries `StixObject` (the label the `stix_id` index
 * seeks on), a class label, the PascalCase of its type, and the cti vocabulary label where one fits:
 *
 *   threat-actor, intrusion-set -> ThreatActor     malware -> Malware        indicator -> Indicator
 *   tool -> Tool      campaign -> Campaign         infrastructure -> Infrastructure
 *   vulnerability -> Vulnerability                 identity -> Identity      location -> Location
 *   report -> Report
 *
 * No class labels (SDO/SCO): the graph indexes every property under every label, so each label costs an
 * index entry per property; `stix_type` says the rest. Relationship objects become
 * edges; their type is the cti vocabulary where `relationship_type` maps, else its PascalCase
 * (`subtechnique-of` -> SubtechniqueOf); the original is kept as `stix_relationship_type`. A sighting is an
 * edge `Sighting` from `sighting_of_ref` to the first of `where_sighted_refs`, `observed_data_refs` (or to
 * itself when neither is given).
 */
import { ownValue } from '../own-key.js'
export const STIX_LABEL = 'StixObject'
export const STIX_EVIDENCE_LABEL = 'StixEvidence'

/** Graph property keys the STIX module reads and writes. */
export const P = {
  id: 'stix_id',
  type: 'stix_type',
  raw: 'stix_raw',
  relType: 'stix_relationship_type',
  name: 'name',
  description: 'description',
  created: 'created',
  modified: 'modified',
  confidence: 'confidence',
  status: 'status',
  evidenceRefs: 'evidence_refs',
  annotated: 'stix_annotated',
  evidenceId: 'evidence_id',
  evidenceRaw: 'evidence_raw',
  externalId: 'external_id',
} as const

/**
 * STIX 2.1 open-vocabulary fields kept as flat properties too (interned strings, lists as lists), so counting and
 * grouping by them is a property read (`MATCH (i:Indicator) RETURN i.indicator_types, count(*)`) rather than a
 * parse of `stix_raw`. The `*_types` lists and `pattern_type` only: ATT&CK bundles carry none of them, so the
 * schema tools read of an ATT&CK graph (`db.schema.*`, `apoc.meta.*`) is what it was.
 */
export const VOCABULARY_PROPERTIES = [
  'indicator_types',
  'malware_types',
  'tool_types',
  'threat_actor_types',
  'infrastructure_types',
  'report_types',
  'pattern_type',
] as const

export const CTI_NODE_LABELS: Readonly<Record<string, string>> = {
  'threat-actor': 'ThreatActor',
  'intrusion-set': 'ThreatActor',
  malware: 'Malware',
  indicator: 'Indicator',
  tool: 'Tool',
  campaign: 'Campaign',
  infrastructure: 'Infrastructure',
  vulnerability: 'Vulnerability',
  identity: 'Identity',
  location: 'Location',
  report: 'Report',
}

export const CTI_VOCABULARY = new Set(Object.values(CTI_NODE_LABELS))

export const CTI_RELATIONSHIP_TYPES: Readonly<Record<string, string>> = {
  indicates: 'Indicates',
  uses: 'Uses',
  targets: 'Targets',
  'attributed-to': 'AttributedTo',
  'communicates-with': 'CommunicatesWith',
  'related-to': 'RelatedTo',
}

export const SCO_TYPES = new Set([
  'artifact',
  'autonomous-system',
  'directory',
  'domain-name',
  'email-addr',
  'email-message',
  'file',
  'ipv4-addr',
  'ipv6-addr',
  'mac-addr',
  'mutex',
  'network-traffic',
  'process',
  'software',
  'url',
  'user-account',
  'windows-registry-key',
  'x509-certificate',
])

export const META_TYPES = new Set(['marking-definition', 'language-content', 'extension-definition'])

export const pascal = (kebab: string): string =>
  kebab
    .split(/[-_]+/)
    .filter((part) => part !== '')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')

/** FACTS §5: relationship/sighting by type, `base_type` RELATION, or both endpoints present. */
export function isRelationshipObject(object: Record<string, unknown>): boolean {
  const type = object.type ?? object.entity_type
  return (
    type === 'relationship' ||
    type === 'sighting' ||
    object.base_type === 'RELATION' ||
    (object.source_ref !== undefined && object.target_ref !== undefined)
  )
}

export function nodeLabels(type: string): string[] {
  // Few labels on purpose: the graph indexes every property under every label of a node.
  const labels = [STIX_LABEL, pascal(type)]
  const cti = ownValue(CTI_NODE_LABELS, type)
  if (cti !== undefined) labels.push(cti)
  return [...new Set(labels)]
}

export function relationshipType(object: Record<string, unknown>): string {
  if (object.type === 'sighting') return 'Sighting'
  const rel = typeof object.relationship_type === 'string' ? object.relationship_type : 'related-to'
  return ownValue(CTI_RELATIONSHIP_TYPES, rel) ?? (pascal(rel) || 'RelatedTo')
}

/** The two graph endpoints (STIX ids) of a relationship object. */
export function endpoints(object: Record<string, unknown>): { source: unknown; target: unknown } {
  if (object.type === 'sighting') {
    const first = (refs: unknown) => (Array.isArray(refs) && refs.length > 0 ? refs[0] : undefined)
    const source = object.sighting_of_ref
    return { source, target: first(object.where_sighted_refs) ?? first(object.observed_data_refs) ?? source }
  }
  return { source: object.source_ref, target: object.target_ref }
}

/** The four TLP 1.0 marking definitions STIX 2.1 predefines: resolvable without being in any bundle. */
export const PREDEFINED_MARKINGS = new Set([
  'marking-definition--613f2e26-407d-48c7-9eca-b8e91df99dc9',
  'marking-definition--34098fce-860f-48ae-8e50-ebd3cc5e41da',
  'marking-definition--f88d31f6-486f-44da-b317-01333bde0b82',
  'marking-definition--5e57c739-391a-4eb3-b6be-7d15ca92d5ed',
])

/** Every STIX id an object refers to through `*_ref` / `*_refs` properties, top level and nested. */
export function collectRefs(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, out)
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.endsWith('_ref') && typeof item === 'string') {
        if (item.includes('--')) out.add(item)
      } else if (key.endsWith('_refs') && Array.isArray(item)) {
        for (const ref of item) if (typeof ref === 'string' && ref.includes('--')) out.add(ref)
      } else if (typeof item === 'object') collectRefs(item, out)
    }
  }
  return out
}
