import type { ProjectedNode, TypedValue } from './types.js'

/** Labels every STIX node (or memory) carries besides its own: a poor choice for colour. */
const GENERIC_LABELS = new Set(['StixObject'])

/** The label a node is coloured and grouped by: its most specific one. */
export function primaryLabel(labels: readonly string[]): string {
  return labels.find((l) => !GENERIC_LABELS.has(l)) ?? labels[0] ?? '(no label)'
}

export function plainValue(value: TypedValue | undefined): unknown {
  return value === undefined || value.type === 'null' ? null : value.value
}

export function textOf(value: TypedValue | undefined): string | null {
  const v = plainValue(value)
  return typeof v === 'string' && v.trim() !== '' ? v : null
}

/** A short title: name, else title, else the memory text, else the STIX id, else the graph id. */
export function displayName(node: Pick<ProjectedNode, 'id' | 'properties'>): string {
  const p = node.properties
  const title = textOf(p.name) ?? textOf(p.title) ?? textOf(p.text) ?? textOf(p.stix_id) ?? node.id
  return title.length > 60 ? `${title.slice(0, 57)}…` : title
}

/** One value as text for a table cell. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return '∅'
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return JSON.stringify(value)
}

/** A colour per label, stable for a label set: the most frequent labels take the most distinct colours. */
const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#b07aa1',
  '#76b7b2',
  '#edc948',
  '#ff9da7',
  '#9c755f',
  '#8cd17d',
  '#499894',
  '#d37295',
]
export const OTHER_COLOUR = '#9aa0a6'

export function labelColours(counts: ReadonlyMap<string, number>): Map<string, string> {
  const ordered = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  return new Map(ordered.map(([label], i) => [label, PALETTE[i] ?? OTHER_COLOUR]))
}

/** Node size by degree: grows with its square root so hubs stand out without hiding their neighbours. */
export const sizeForDegree = (degree: number): number => Math.min(18, 3 + 1.6 * Math.sqrt(degree))

/**
 * A deterministic start position (golden-angle spiral, grouped by label) so the first drawing is readable
 * and the same for the same data, before ForceAtlas2 refines it in its worker.
 */
export function startPosition(index: number, groupIndex: number, groups: number): { x: number; y: number } {
  const angle = index * 2.399963229728653
  const radius = Math.sqrt(index + 1) * 10
  const offset = (groupIndex / Math.max(1, groups)) * 2 * Math.PI
  return {
    x: radius * Math.cos(angle) + 40 * Math.cos(offset) * Math.sqrt(groups),
    y: radius * Math.sin(angle) + 40 * Math.sin(offset) * Math.sqrt(groups),
  }
}

/** The part of a rationale a reader scans first: the matched terms, else its first clause. */
export function shortRationale(rationale: string): string {
  const matched = /matched terms?: ([^;]+)/.exec(rationale)
  if (matched !== null) return `matched: ${matched[1]!.trim()}`
  const first = rationale.split(/[;=]/)[0]!.trim()
  return first.length > 120 ? `${first.slice(0, 117)}…` : first
}
