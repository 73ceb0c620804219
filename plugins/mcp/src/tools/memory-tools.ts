import { createHash } from 'node:crypto'
import {
  canonicalJson,
  MEMORY_INPUT_SCHEMAS,
  MEMORY_PERMISSION_OF,
  MemoryIdempotencyKeySchema,
  type MemoryInputSchemas,
  type RECALL_LIMITS,
} from '@service/core'
import { type TObject, type TSchema, Type } from 'typebox'
import { DEFAULT_PAYLOAD_BYTES } from '../budget.js'
import { KEYED_WRITE, PageSchema, READ, type ToolDefinition, type ToolOutput } from '../tool.js'

type Operation = keyof MemoryInputSchemas

/** Recall limits sized for a prompt; the caller may raise any of them up to the contract's maxima. */
export const MCP_RECALL_DEFAULTS = {
  max_items: 50,
  max_depth: 2,
  max_payload_bytes: DEFAULT_PAYLOAD_BYTES,
  max_cost: 10_000,
  timeout_ms: 5_000,
  supernode_threshold: 1_000,
} as const satisfies Record<keyof typeof RECALL_LIMITS, number>

const KEY_NOTE =
  'idempotency_key is optional: without one the key is derived from the tool name and the canonical input ' +
  'within the workspace, so retrying an identical call returns the original receipt (replayed: true) and ' +
  'never writes twice. Pass a key of your own to make two identical calls distinct writes.'

const IdempotencyKey = Type.Optional(
  Type.String({
    ...MemoryIdempotencyKeySchema,
    description: 'Optional; derived from the tool name and input when absent (a retry then replays).',
  }),
)

/** The contract's input schema, with the key beside it for mutations and recall's limits made optional. */
function inputOf(operation: Operation, keyed: boolean): TObject {
  const schema = MEMORY_INPUT_SCHEMAS[operation] as TObject & { description?: string }
  const properties: Record<string, unknown> = { ...schema.properties }
  if (operation === 'recall') {
    properties.limits = Type.Optional(
      Type.Partial(MEMORY_INPUT_SCHEMAS.recall.properties.limits, {
        additionalProperties: false,
        description: `Defaults sized for a prompt: ${JSON.stringify(MCP_RECALL_DEFAULTS)}.`,
      }),
    )
  }
  if (keyed) properties.idempotency_key = IdempotencyKey
  return Type.Object(properties as Record<string, TObject>, {
    additionalProperties: false,
    ...(schema.description ? { description: schema.description } : {}),
  })
}

const Result = (extra: Record<string, TSchema> = {}) =>
  Type.Object(
    {
      operation: Type.String(),
      receipt: Type.Optional(
        Type.Union([
          Type.Object({
            committed_id: Type.String(),
            committed_version: Type.Integer(),
            audit_correlation_id: Type.String(),
            replayed: Type.Boolean(),
          }),
          Type.Null(),
        ]),
      ),
      ...extra,
    },
    { additionalProperties: true },
  )

/** The key a retry of the same call derives again: tool name and canonical input, hashed (never stored raw). */
export function derivedKey(tool: string, input: unknown): string {
  return `mcp-${createHash('sha256')
    .update(`${tool}\n${canonicalJson(input)}`)
    .digest('hex')}`
}

const short = (text: unknown, n = 100) => {
  const s = typeof text === 'string' ? text : JSON.stringify(text)
  return s.length > n ? `${s.slice(0, n - 1)}…` : s
}

function render(operation: string, result: Record<string, unknown>): string {
  const receipt = result.receipt as
    | { committed_id: string; committed_version: number; replayed: boolean }
    | undefined
  if (receipt)
    return `${operation}: ${receipt.committed_id} version ${receipt.committed_version}${receipt.replayed ? ' (replayed: the original receipt)' : ''}`
  if (operation === 'recall') {
    const items = (result.items ?? []) as { record?: { id: string; content?: { value: unknown } } }[]
    const completeness = result.completeness as { complete: boolean; outcomes: string[] } | undefined
    const lines = items
      .slice(0, 20)
      .map(
        (i) =>
          `- ${i.record?.id}: ${short((i.record?.content?.value as { text?: string })?.text ?? i.record?.content?.value)}`,
      )
    const more = items.length > 20 ? [`… ${items.length - 20} more in the structured result`] : []
    const next = result.next_page_token ? ' More: call again with page.next.' : ''
    return [
      `recall: ${items.length} items, ${completeness?.complete === false ? `truncated (${completeness.outcomes.join(', ') || 'items'})` : 'complete'}.${next}`,
      ...lines,
      ...more,
    ].join('\n')
  }
  if (operation === 'consolidate' && typeof result.proposal_id === 'string')
    return `consolidate: proposal ${result.proposal_id} (nothing changed; apply with mode apply_approved)`
  return `${operation}: ${short(result, 300)}`
}

function memoryTool(
  operation: Operation,
  title: string,
  description: string,
  annotations: ToolDefinition['annotations'],
): ToolDefinition {
  const keyed = annotations.readOnlyHint === false
  return {
    name: operation,
    title,
    description: keyed ? `${description} ${KEY_NOTE}` : description,
    input: inputOf(operation, keyed),
    output:
      operation === 'recall' ? Result({ items: Type.Array(Type.Unknown()), page: PageSchema }) : Result(),
    permission: MEMORY_PERMISSION_OF[operation],
    annotations,
    keyed,
    async run(args, { backend, call }): Promise<ToolOutput> {
      const { idempotency_key: given, ...input } = args
      if (operation === 'recall')
        input.limits = { ...MCP_RECALL_DEFAULTS, ...(input.limits as object | undefined) }
      const mode = (input.mode as { mode?: string } | undefined)?.mode
      const needsKey = keyed && !(operation === 'consolidate' && mode === 'propose')
      const request = {
        contract_version: 'v1',
        operation,
        input,
        ...(needsKey
          ? { idempotency_key: (given as string | undefined) ?? derivedKey(operation, input) }
          : {}),
      }
      const response = await backend.memory(request, call)
      const result = response.result.result
      const structured: Record<string, unknown> = { operation: response.result.operation, ...result }
      if (operation === 'recall') {
        const completeness = result.completeness as { complete: boolean; outcomes: string[] }
        const token = result.next_page_token as string | null | undefined
        structured.page = {
          complete: completeness.complete && !token,
          truncated: [...(completeness.outcomes ?? []), ...(token ? ['items'] : [])],
          // The token is bound to the objective and seeds: the next page is the same call with it.
          next: token ? { ...args, page_token: token } : null,
        }
      }
      return { structured, text: render(response.result.operation, result) }
    },
  }
}

const DESTRUCTIVE_KEYED = { ...KEYED_WRITE, destructiveHint: true }

export const MEMORY_TOOLS: readonly ToolDefinition[] = [
  memoryTool(
    'remember',
    'Remember a fact',
    'Store a memory (text and/or properties, with provenance), or upsert the one with the same identity_key as a new version. Returns the record with its id and version.',
    KEYED_WRITE,
  ),
  memoryTool(
    'relate',
    'Relate two memories',
    'Create or version an evidence-bearing relationship between two memories of this workspace.',
    KEYED_WRITE,
  ),
  memoryTool(
    'recall',
    'Recall a working set',
    'Find the memories that answer an objective (lexical and explicit seeds) and their bounded neighbourhood. The result says whether it is complete and gives page.next to continue.',
    READ,
  ),
  memoryTool(
    'update',
    'Update a memory',
    'Patch a memory or relationship as a new version; expected_version makes it optimistic (a stale one is VERSION_CONFLICT).',
    DESTRUCTIVE_KEYED,
  ),
  memoryTool(
    'trace',
    'Trace a record',
    'Explain a memory, relationship, mutation or recall: versions with actor, agent and session, evidence paths and policy decisions.',
    READ,
  ),
  memoryTool(
    'forget',
    'Forget a memory',
    'Expire, tombstone or application-delete a memory so recall no longer returns it (its history stays for trace).',
    DESTRUCTIVE_KEYED,
  ),
  memoryTool(
    'consolidate',
    'Consolidate memories',
    'mode propose returns a proposal and changes nothing; mode apply_approved repeats its exact memory_ids and canonical_id with an approval_policy and supersedes the originals (nothing is deleted).',
    DESTRUCTIVE_KEYED,
  ),
]
