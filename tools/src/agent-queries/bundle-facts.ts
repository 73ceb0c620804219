import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * What the ATT&CK bundles say, read straight from their JSON with no engine in the way: the expected answers of
 * the agent-query set are computed from these facts. The only knowledge of the product used here is the
 * documented import mapping (README, `docs/architecture.md`): every STIX object a node labelled `StixObject` and
 * the PascalCase of its type (plus the cti vocabulary label), properties `name`, `description`, `created`,
 * `modified`, `external_id` (the first external reference's id), `stix_type`, `stix_raw`; relationship objects
 * edges typed with the PascalCase of `relationship_type`.
 */
export interface FactNode {
  id: string
  type: string
  labels: string[]
  name?: string
  description?: string
  created?: string
  modified?: string
  external_id?: string
  raw: Record<string, unknown>
}

export interface FactRel {
  id: string
  /** The graph type: `Uses`, `SubtechniqueOf`, … */
  type: string
  source: string
  target: string
  raw: Record<string, unknown>
}

export const BUNDLE_FILES = ['mobile-attack-17.1.json', 'ics-attack-18.1.json'] as const

const CTI_LABELS: Record<string, string> = {
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

const pascal = (kebab: string): string =>
  kebab
    .split(/[-_]+/)
    .filter((p) => p !== '')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('')

export class BundleFacts {
  readonly nodes = new Map<string, FactNode>()
  readonly rels: FactRel[] = []
  readonly bundles: { type: 'bundle'; id: string; objects: Record<string, unknown>[] }[] = []

  constructor(attackDir: string) {
    const seenRels = new Set<string>()
    for (const file of BUNDLE_FILES) {
      const bundle = JSON.parse(readFileSync(join(attackDir, file), 'utf8'))
      this.bundles.push(bundle)
      for (const o of bundle.objects as Record<string, unknown>[]) {
        const id = String(o.id)
        const type = String(o.type)
        if (type === 'relationship') {
          if (seenRels.has(id)) continue
          seenRels.add(id)
          this.rels.push({
            id,
            type: pascal(String(o.relationship_type)),
            source: String(o.source_ref),
            target: String(o.target_ref),
            raw: o,
          })
          continue
        }
        if (this.nodes.has(id)) continue // the same object in both bundles is one node
        const labels = [
          ...new Set(['StixObject', pascal(type), ...(CTI_LABELS[type] ? [CTI_LABELS[type]] : [])]),
        ]
        const refs = Array.isArray(o.external_references)
          ? (o.external_references as Record<string, unknown>[])
          : []
        const external = refs.find((r) => typeof r.external_id === 'string')?.external_id as
          | string
          | undefined
        const node: FactNode = { id, type, labels, raw: o }
        for (const key of ['name', 'description', 'created', 'modified'] as const) {
          if (typeof o[key] === 'string') node[key] = o[key] as string
        }
        if (external !== undefined) node.external_id = external
        this.nodes.set(id, node)
      }
    }
  }

  withLabel(label: string): FactNode[] {
    return [...this.nodes.values()].filter((n) => n.labels.includes(label))
  }

  /** The one node of that name; a name that two objects share (ATT&CK keeps deprecated twins) is refused. */
  byName(name: string, label?: string): FactNode {
    const found = this.named(name, label)
    if (found.length !== 1) throw new Error(`${found.length} nodes named ${name}`)
    return found[0] as FactNode
  }

  named(name: string, label?: string): FactNode[] {
    return [...this.nodes.values()].filter((n) => n.name === name && (!label || n.labels.includes(label)))
  }

  out(node: FactNode, type?: string, targetLabel?: string): FactNode[] {
    return this.rels
      .filter((r) => r.source === node.id && (!type || r.type === type))
      .map((r) => this.nodes.get(r.target) as FactNode)
      .filter((n) => n !== undefined && (!targetLabel || n.labels.includes(targetLabel)))
  }

  in(node: FactNode, type?: string, sourceLabel?: string): FactNode[] {
    return this.rels
      .filter((r) => r.target === node.id && (!type || r.type === type))
      .map((r) => this.nodes.get(r.source) as FactNode)
      .filter((n) => n !== undefined && (!sourceLabel || n.labels.includes(sourceLabel)))
  }

  /** Breadth-first distances over relationships in either direction, optionally of one type. */
  distances(from: FactNode, type?: string): Map<string, number> {
    const adjacency = new Map<string, string[]>()
    const link = (a: string, b: string) => {
      const list = adjacency.get(a)
      if (list) list.push(b)
      else adjacency.set(a, [b])
    }
    for (const r of this.rels) {
      if (type && r.type !== type) continue
      link(r.source, r.target)
      link(r.target, r.source)
    }
    const dist = new Map([[from.id, 0]])
    let frontier = [from.id]
    while (frontier.length > 0) {
      const next: string[] = []
      for (const id of frontier) {
        for (const other of adjacency.get(id) ?? []) {
          if (dist.has(other)) continue
          dist.set(other, (dist.get(id) as number) + 1)
          next.push(other)
        }
      }
      frontier = next
    }
    return dist
  }

  /** The number of shortest undirected paths (parallel relationships counted apart) between two nodes. */
  shortestPathCount(from: FactNode, to: FactNode): number {
    const dist = this.distances(from)
    const target = dist.get(to.id)
    if (target === undefined) return 0
    const ways = new Map([[from.id, 1]])
    const byLevel: string[][] = []
    for (const [id, d] of dist) {
      const level = byLevel[d] ?? []
      level.push(id)
      byLevel[d] = level
    }
    for (let level = 1; level <= target; level++) {
      for (const id of byLevel[level] ?? []) {
        let count = 0
        for (const r of this.rels) {
          const other = r.source === id ? r.target : r.target === id ? r.source : undefined
          if (other !== undefined && dist.get(other) === level - 1) count += ways.get(other) ?? 0
        }
        ways.set(id, count)
      }
    }
    return ways.get(to.id) ?? 0
  }
}
