import { Type } from 'typebox'
import type { CypherOutcome } from '../backend.js'
import { bytesOf, DEFAULT_PAYLOAD_BYTES, fitItems, Offset, PayloadBudget, pageOf } from '../budget.js'
import { PageSchema, READ, type ToolDefinition } from '../tool.js'

const Query = Type.String({
  minLength: 1,
  maxLength: 8192,
  description: 'A Cypher query; parameters as $name.',
})
const Params = Type.Optional(
  Type.Record(Type.String(), Type.Unknown(), { description: 'Query parameters, bound as values.' }),
)
const CypherResult = Type.Object(
  {
    status: Type.String(),
    columns: Type.Array(Type.String()),
    rows: Type.Array(Type.Array(Type.Unknown())),
    row_count: Type.Integer({ description: 'Rows the query returned in all pages.' }),
    mutation_summary: Type.Optional(Type.Unknown()),
    validation_errors: Type.Array(
      Type.Object({ code: Type.String(), message: Type.String(), neo4j_code: Type.Optional(Type.String()) }),
    ),
    page: PageSchema,
  },
  { additionalProperties: false },
)

/** A Cypher answer cut to the payload budget by whole rows; the next page is the same query from `offset`. */
function cypherPage(outcome: CypherOutcome, offset: number, budget: number, args: Record<string, unknown>) {
  const rows = outcome.data?.rows ?? []
  const columns = outcome.data?.columns ?? []
  const head = {
    status: outcome.status,
    columns,
    row_count: rows.length,
    validation_errors: outcome.validation_errors ?? [],
    ...(outcome.mutation_summary === undefined ? {} : { mutation_summary: outcome.mutation_summary }),
  }
  const fitted = fitItems(rows, Math.min(offset, rows.length), budget, bytesOf(head) + 200)
  return {
    structured: {
      ...head,
      rows: fitted.page,
      page: pageOf(fitted.more, 'rows', { ...args, offset: fitted.end }),
    },
    text:
      outcome.status === 'Success'
        ? `${outcome.status}: rows ${offset}..${fitted.end} of ${rows.length} (${columns.join(', ')})${fitted.more ? '; more with page.next' : ''}`
        : `${outcome.status}: ${(outcome.validation_errors ?? []).map((e) => `${e.code} ${e.message}`).join('; ')}`,
  }
}

const cypherDescription = (mode: string) =>
  `Run a ${mode} Cypher query (MATCH, WHERE, RETURN, aggregates, ...; the engine's budgets apply) in this workspace. ` +
  'Results are cut to max_payload_bytes by whole rows; page.next gives the offset of the next page.'

export const GRAPH_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'seed_search',
    title: 'Search for seed nodes',
    description:
      'Rank graph nodes for a natural-language objective (hybrid lexical, semantic and graph signals), each with its score and an explanation.',
    input: Type.Object(
      {
        objective: Type.String({ minLength: 1, maxLength: 4096 }),
        mode: Type.Optional(
          Type.Union(['hybrid', 'full_text', 'semantic', 'vector'].map((m) => Type.Literal(m))),
        ),
        top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 10.' })),
        score_threshold: Type.Optional(Type.Number()),
        offset: Offset,
        max_payload_bytes: PayloadBudget,
      },
      { additionalProperties: false },
    ),
    output: Type.Object(
      { candidates: Type.Array(Type.Unknown()), page: PageSchema },
      { additionalProperties: false },
    ),
    permission: 'read',
    annotations: READ,
    async run(args, { backend, call }) {
      const { max_payload_bytes, offset, ...request } = args as {
        objective: string
        offset?: number
        max_payload_bytes?: number
      }
      const { candidates } = await backend.seedSearch(request, call)
      const from = Math.min(offset ?? 0, candidates.length)
      const fitted = fitItems(candidates, from, max_payload_bytes ?? DEFAULT_PAYLOAD_BYTES, 200)
      const lines = (fitted.page as { node_id: string; score: number; title?: string }[]).map(
        (c) => `- ${c.node_id} (${c.score.toFixed(3)})${c.title ? ` ${c.title}` : ''}`,
      )
      return {
        structured: {
          candidates: fitted.page,
          page: pageOf(fitted.more, 'candidates', { ...args, offset: fitted.end }),
        },
        text: [`seed_search: ${fitted.page.length} candidates`, ...lines].join('\n'),
      }
    },
  },
  {
    name: 'cypher_read',
    title: 'Read with Cypher',
    description: cypherDescription('read-only (a query that would write is Rejected)'),
    input: Type.Object(
      { query: Query, params: Params, offset: Offset, max_payload_bytes: PayloadBudget },
      { additionalProperties: false },
    ),
    output: CypherResult,
    permission: 'read',
    annotations: READ,
    async run(args, { backend, call }) {
      const { query, params, offset, max_payload_bytes } = args as {
        query: string
        params?: Record<string, unknown>
        offset?: number
        max_payload_bytes?: number
      }
      const outcome = await backend.cypher('read', query, params ?? {}, call)
      return cypherPage(outcome, offset ?? 0, max_payload_bytes ?? DEFAULT_PAYLOAD_BYTES, args)
    },
  },
  {
    name: 'cypher_write',
    title: 'Write with Cypher',
    description: `${cypherDescription('writing')} Not idempotent: a retried CREATE creates again; prefer remember/relate for memories.`,
    input: Type.Object(
      { query: Query, params: Params, max_payload_bytes: PayloadBudget },
      { additionalProperties: false },
    ),
    output: CypherResult,
    permission: 'write',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    enabled: (backend) => backend.allowCypherWrite,
    async run(args, { backend, call }) {
      const { query, params, max_payload_bytes } = args as {
        query: string
        params?: Record<string, unknown>
        max_payload_bytes?: number
      }
      const outcome = await backend.cypher('write', query, params ?? {}, call)
      return cypherPage(outcome, 0, max_payload_bytes ?? DEFAULT_PAYLOAD_BYTES, { query, params })
    },
  },
  {
    name: 'graph_schema',
    title: 'Describe the graph',
    description:
      'The vocabulary of this workspace graph: node labels, relationship types and property keys, each with how many records carry it, most frequent first. Use it before writing Cypher.',
    input: Type.Object({ max_payload_bytes: PayloadBudget }, { additionalProperties: false }),
    output: Type.Object(
      {
        node_count: Type.Integer(),
        relationship_count: Type.Integer(),
        labels: Type.Array(Type.Object({ label: Type.String(), count: Type.Integer() })),
        relationship_types: Type.Array(Type.Object({ type: Type.String(), count: Type.Integer() })),
        node_property_keys: Type.Array(Type.Object({ key: Type.String(), count: Type.Integer() })),
        relationship_property_keys: Type.Array(Type.Object({ key: Type.String(), count: Type.Integer() })),
        page: PageSchema,
      },
      { additionalProperties: false },
    ),
    permission: 'read',
    annotations: READ,
    async run(args, { backend, call }) {
      const budget = (args.max_payload_bytes as number | undefined) ?? DEFAULT_PAYLOAD_BYTES
      const summary = await backend.graphSchema(call)
      // Each list gets a quarter of the budget; the heads (most frequent) are what a query writer needs.
      const lists = [
        'labels',
        'relationship_types',
        'node_property_keys',
        'relationship_property_keys',
      ] as const
      const truncated: string[] = []
      const out: Record<string, unknown> = {
        node_count: summary.node_count,
        relationship_count: summary.relationship_count,
      }
      for (const list of lists) {
        const fitted = fitItems(summary[list] as unknown[], 0, Math.floor(budget / 4), 50)
        out[list] = fitted.page
        if (fitted.more) truncated.push(list)
      }
      out.page = {
        complete: truncated.length === 0,
        truncated,
        next: truncated.length === 0 ? null : { max_payload_bytes: Math.min(budget * 4, 16 * 1024 * 1024) },
      }
      const names = (xs: unknown, key: string) =>
        (xs as Record<string, unknown>[])
          .slice(0, 15)
          .map((x) => `${x[key]} (${x.count})`)
          .join(', ')
      return {
        structured: out,
        text: [
          `graph_schema: ${summary.node_count} nodes, ${summary.relationship_count} relationships`,
          `labels: ${names(out.labels, 'label')}`,
          `relationship types: ${names(out.relationship_types, 'type')}`,
          `node property keys: ${names(out.node_property_keys, 'key')}`,
        ].join('\n'),
      }
    },
  },
]
