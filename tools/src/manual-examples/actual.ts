import type { GraphReader } from '@service/core'
import {
  formatTemporal,
  isPoint,
  isTemporal,
  NodeValue,
  PathValue,
  RelValue,
  type Value,
} from '@service/core/cypher'
import { float, int, list, map, node, point, rel, str, temporal } from './form.js'

/** Renders an engine value to the canonical text of `form.ts`; `?` for a kind the manual cannot show. */
export function renderValue(value: Value, graph: GraphReader): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'boolean':
      return String(value)
    case 'bigint':
      return int(value)
    case 'number':
      return float(value)
    case 'string':
      return str(value)
  }
  if (Array.isArray(value)) return list(value.map((v) => renderValue(v, graph)))
  if (value instanceof Map) return map([...value].map(([k, v]) => [k, renderValue(v, graph)]))
  if (value instanceof NodeValue) return renderNode(value.id, graph)
  if (value instanceof RelValue) return renderRel(value.id, graph)
  if (value instanceof PathValue) {
    let out = renderNode(value.nodes[0] as number, graph)
    value.rels.forEach((id, i) => {
      const forward = graph.relStart(id) === value.nodes[i]
      out += `${forward ? '-' : '<-'}${renderRel(id, graph)}${forward ? '->' : '-'}`
      out += renderNode(value.nodes[i + 1] as number, graph)
    })
    return `<${out}>`
  }
  if (isTemporal(value)) return temporal(formatTemporal(value))
  if (isPoint(value)) return point(value.srid, [...value.coords])
  return '?'
}

function props(entries: Iterable<[number, Value]> | undefined, graph: GraphReader): [string, string][] {
  return [...(entries ?? [])].map(([k, v]) => [graph.names.name(k), renderValue(v, graph)])
}

function renderNode(id: number, graph: GraphReader): string {
  const record = graph.node(id)
  if (record === undefined) return '()'
  return node(
    record.labels.map((l) => graph.names.name(l)),
    props(record.props, graph),
  )
}

function renderRel(id: number, graph: GraphReader): string {
  const type = graph.relType(id)
  return type < 0 ? '[]' : rel(graph.names.name(type), props(graph.relProps(id), graph))
}
