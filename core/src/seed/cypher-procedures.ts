import { runtimeError, typeError } from '../cypher/errors.js'
import { tick } from '../cypher/executor/context.js'
import type { ProcedureContext, ProcedureDef } from '../cypher/procedures/registry.js'
import { NodeValue, RelValue, typeName, type Value } from '../cypher/values.js'
import type { SeedIndex } from './seed-index.js'
import { analyze } from './tokenizer.js'

/**
 * Neo4j's index query procedures over the seed index the engine keeps anyway: fulltext queries run BM25F over
 * each node's indexed text (and each memory relationship's), vector queries search the embeddings of the
 * configured provider. The named index must be declared (`CREATE FULLTEXT|VECTOR INDEX`): its labels or types
 * filter the hits, as in Neo4j; the fields searched are the seed index's text fields, not the index's keys.
 */

const DEFAULT_LIMIT = 100

function declared(
  ctx: ProcedureContext,
  name: Value,
  type: 'FULLTEXT' | 'VECTOR',
  entity: 'NODE' | 'RELATIONSHIP',
) {
  if (typeof name !== 'string') throw typeError(`indexName must be a string, got ${typeName(name)}`)
  const rule = ctx.host.schemaRules().find((r) => r.kind === 'index' && r.name === name)
  if (rule === undefined || rule.type !== type || rule.entityType !== entity)
    throw runtimeError(
      'PROCEDURE_CALL_FAILED',
      `there is no ${type.toLowerCase()} ${entity.toLowerCase()} index named '${name}'`,
    )
  return rule
}

/** Lucene syntax reduced to its words: field prefixes, operators and wildcards are not terms. */
function terms(query: Value): string[] {
  if (typeof query !== 'string') throw typeError(`queryString must be a string, got ${typeName(query)}`)
  const words = query.replace(/\b[\w.]+:/g, ' ').replace(/\b(AND|OR|NOT|TO)\b/g, ' ')
  return [...new Set(analyze(words))]
}

function limitOf(options: Value): number {
  if (!(options instanceof Map)) return DEFAULT_LIMIT
  const limit = options.get('limit')
  if (limit === undefined || limit === null) return DEFAULT_LIMIT
  if (typeof limit !== 'bigint' || limit < 1n)
    throw runtimeError('INVALID_ARGUMENT_VALUE', 'options.limit must be a positive integer')
  return Number(limit)
}

function hasLabel(ctx: ProcedureContext, id: number, labels: string[]): boolean {
  const node = ctx.graph.node(id)
  if (node === undefined) return false
  return labels.some((label) => {
    const labelId = ctx.graph.names.lookup(label)
    return labelId >= 0 && node.labels.includes(labelId)
  })
}

/** `db.index.fulltext.queryNodes` or `queryRelationships`: BM25F over the node or relationship index. */
function fulltextQuery(
  index: SeedIndex,
  entity: 'NODE' | 'RELATIONSHIP',
  output: 'node' | 'relationship',
  element: (id: number) => Value,
): ProcedureDef {
  const what = entity === 'NODE' ? 'nodes of its labels' : 'relationships of its types'
  return {
    name: `db.index.fulltext.query${entity === 'NODE' ? 'Nodes' : 'Relationships'}`,
    description: `Query the given fulltext index: ${what} by BM25F over their indexed text, best first.`,
    mode: 'READ',
    params: [
      { name: 'indexName', type: 'STRING' },
      { name: 'queryString', type: 'STRING' },
      { name: 'options', type: 'MAP', default: new Map() as Value },
    ],
    outputs: [
      { name: output, type: entity },
      { name: 'score', type: 'FLOAT' },
    ],
    run([name, query, options], ctx) {
      const rule = declared(ctx, name ?? null, 'FULLTEXT', entity)
      const ws = index.workspace(ctx.host.workspaceId)
      if (ws === undefined) return []
      const types = rule.labelsOrTypes.map((type) => ctx.graph.names.lookup(type))
      const accept = (id: number) => {
        tick(ctx)
        return entity === 'NODE'
          ? hasLabel(ctx, id, rule.labelsOrTypes)
          : types.includes(ctx.graph.relType(id))
      }
      const docs = entity === 'NODE' ? ws.bm25 : ws.relations
      return docs
        .top(terms(query ?? null), limitOf(options ?? null), accept)
        .map(({ doc, raw }) => [element(doc), raw])
    },
  }
}

export function seedProcedures(index: SeedIndex): ProcedureDef[] {
  return [
    fulltextQuery(index, 'NODE', 'node', (id) => new NodeValue(id)),
    fulltextQuery(index, 'RELATIONSHIP', 'relationship', (id) => new RelValue(id)),
    {
      name: 'db.index.vector.queryNodes',
      description:
        'Query the given vector index: the k nodes of its label nearest to the query vector (cosine, scored (1 + cos) / 2).',
      mode: 'READ',
      params: [
        { name: 'indexName', type: 'STRING' },
        { name: 'numberOfNearestNeighbours', type: 'INTEGER' },
        { name: 'query', type: 'LIST<FLOAT>' },
      ],
      outputs: [
        { name: 'node', type: 'NODE' },
        { name: 'score', type: 'FLOAT' },
      ],
      run([name, k, query], ctx) {
        const rule = declared(ctx, name ?? null, 'VECTOR', 'NODE')
        if (typeof k !== 'bigint' || k < 1n)
          throw runtimeError('INVALID_ARGUMENT_VALUE', 'numberOfNearestNeighbours must be a positive integer')
        if (!Array.isArray(query))
          throw typeError(`query must be a list of floats, got ${typeName(query ?? null)}`)
        const vectors = index.workspace(ctx.host.workspaceId)?.vectors
        if (vectors === null || vectors === undefined)
          throw runtimeError(
            'PROCEDURE_CALL_FAILED',
            'no vectors: the service has no embedding provider configured',
          )
        if (query.length !== vectors.dims)
          throw runtimeError(
            'INVALID_ARGUMENT_VALUE',
            `the query vector has ${query.length} dimensions, the index ${vectors.dims}`,
          )
        const unit = Float32Array.from(query, (x) => Number(x))
        const norm = Math.hypot(...unit)
        if (norm === 0) throw runtimeError('INVALID_ARGUMENT_VALUE', 'the query vector must not be zero')
        for (let i = 0; i < unit.length; i++) unit[i] = (unit[i] as number) / norm
        // Nearest first, then the index's label: ask for more than k so the filter still leaves k.
        const wanted = Number(k)
        const out: Value[][] = []
        for (const hit of vectors.nearest(unit, Math.min(wanted * 4, ctx.budgets.maxLoadedRecords))) {
          tick(ctx)
          if (!hasLabel(ctx, hit.id, rule.labelsOrTypes)) continue
          out.push([new NodeValue(hit.id), (1 + hit.similarity) / 2])
          if (out.length === wanted) break
        }
        return out
      },
    },
  ]
}
