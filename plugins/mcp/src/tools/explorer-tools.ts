import { Type } from 'typebox'
import { DEFAULT_PAYLOAD_BYTES, fitItems, Offset, PayloadBudget, pageOf } from '../budget.js'
import { PageSchema, READ, type ToolDefinition } from '../tool.js'

interface TimelineNode {
  boundary: Record<string, unknown>
  children: TimelineNode[]
}

/** The lineage in order (each boundary is its predecessor's child), flat so it pages by offset. */
function flatten(roots: TimelineNode[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  const stack = [...roots].reverse()
  while (stack.length > 0) {
    const node = stack.pop() as TimelineNode
    out.push(node.boundary)
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as TimelineNode)
  }
  return out
}

/** Explorer projection budgets sized for a prompt; the spec's ranges bound what the caller may ask. */
const GRAPH_DEFAULTS = { max_nodes: 200, max_relationships: 400, max_properties_per_record: 16 } as const

export const EXPLORER_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'explorer_timeline',
    title: 'This session’s timeline',
    description:
      'The boundaries of this MCP session’s service session in order: a timeshot for every write made through it and any snapshots. Each boundary_id can be passed to explorer_graph.',
    input: Type.Object({ offset: Offset, max_payload_bytes: PayloadBudget }, { additionalProperties: false }),
    output: Type.Object(
      {
        session_id: Type.String(),
        total_boundaries: Type.Integer(),
        boundaries: Type.Array(Type.Record(Type.String(), Type.Unknown())),
        page: PageSchema,
      },
      { additionalProperties: false },
    ),
    permission: 'read',
    annotations: READ,
    async run(args, { backend, call }) {
      const timeline = await backend.timeline(call)
      const all = flatten((timeline.roots as TimelineNode[]) ?? [])
      const from = Math.min((args.offset as number | undefined) ?? 0, all.length)
      const fitted = fitItems(
        all,
        from,
        (args.max_payload_bytes as number | undefined) ?? DEFAULT_PAYLOAD_BYTES,
        200,
      )
      const lines = fitted.page.map((b) => `- ${b.boundary_id} ${b.kind ?? ''} ${b.label ?? ''}`.trimEnd())
      return {
        structured: {
          session_id: String(timeline.session_id),
          total_boundaries: all.length,
          boundaries: fitted.page,
          page: pageOf(fitted.more, 'boundaries', { ...args, offset: fitted.end }),
        },
        text: [`explorer_timeline: boundaries ${from}..${fitted.end} of ${all.length}`, ...lines].join('\n'),
      }
    },
  },
  {
    name: 'explorer_graph',
    title: 'The graph as of a boundary (bounded)',
    description:
      'A bounded, deterministic projection of the workspace graph now (boundary_kind current) or as of one of this session’s snapshots or timeshots. Budgets default to a prompt-sized 200 nodes, 400 relationships, 16 properties per record and max_payload_bytes; the result says what it left out.',
    input: Type.Object(
      {
        boundary_kind: Type.Optional(
          Type.Union([Type.Literal('current'), Type.Literal('snapshot'), Type.Literal('timeshot')]),
        ),
        boundary_id: Type.Optional(Type.String({ minLength: 1 })),
        max_nodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 50_000 })),
        max_relationships: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
        max_properties_per_record: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
        max_computation_units: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
        max_payload_bytes: PayloadBudget,
      },
      { additionalProperties: false },
    ),
    output: Type.Object(
      {
        nodes: Type.Array(Type.Unknown()),
        relationships: Type.Array(Type.Unknown()),
        page: PageSchema,
      },
      { additionalProperties: true },
    ),
    permission: 'read',
    annotations: READ,
    async run(args, { backend, call }) {
      const query = {
        ...GRAPH_DEFAULTS,
        max_computation_units: 100_000,
        ...args,
        max_payload_bytes: (args.max_payload_bytes as number | undefined) ?? DEFAULT_PAYLOAD_BYTES,
      }
      const projection = await backend.graph(query, call)
      const metadata = (projection.metadata ?? {}) as Record<string, number | boolean>
      const truncated = (['omitted_nodes', 'omitted_relationships', 'omitted_properties'] as const)
        .filter((k) => Number(metadata[k] ?? 0) > 0)
        .map((k) => k.replace('omitted_', ''))
      const nodes = (projection.nodes as unknown[]) ?? []
      const relationships = (projection.relationships as unknown[]) ?? []
      const grow = (n: number, max: number) => Math.min(n * 4, max)
      return {
        structured: {
          ...projection,
          page: {
            complete: truncated.length === 0,
            truncated,
            // The projection is ordered, not offset-addressable: the way to see more is a larger budget.
            next:
              truncated.length === 0
                ? null
                : {
                    ...args,
                    max_nodes: grow(query.max_nodes, 50_000),
                    max_relationships: grow(query.max_relationships, 100_000),
                    max_payload_bytes: grow(query.max_payload_bytes, 16_777_216),
                  },
          },
        },
        text: `explorer_graph: ${nodes.length} nodes, ${relationships.length} relationships${truncated.length ? `; left out: ${truncated.join(', ')}` : ''}`,
      }
    },
  },
]
