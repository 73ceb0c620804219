import { Type } from 'typebox'
import { bytesOf, DEFAULT_PAYLOAD_BYTES, fitItems, Offset, PayloadBudget, pageOf } from '../budget.js'
import { KEYED_WRITE, PageSchema, READ, type ToolDefinition } from '../tool.js'

export const STIX_TOOLS: readonly ToolDefinition[] = [
  {
    name: 'stix_import',
    title: 'Import a STIX bundle',
    description:
      'Import a STIX 2.1 bundle as one atomic transaction (objects become nodes, relationships and sightings edges). Re-importing the same objects changes nothing, so a retry is safe.',
    input: Type.Object(
      {
        bundle: Type.Object(
          {
            type: Type.Literal('bundle'),
            id: Type.Optional(Type.String()),
            objects: Type.Array(Type.Record(Type.String(), Type.Unknown())),
          },
          { additionalProperties: true },
        ),
      },
      { additionalProperties: false },
    ),
    output: Type.Object(
      {
        processed_objects: Type.Integer(),
        applied_mutations: Type.Integer(),
        rejected_mutations: Type.Integer(),
        errors: Type.Array(Type.String()),
      },
      { additionalProperties: true },
    ),
    permission: 'write',
    annotations: KEYED_WRITE,
    async run(args, { backend, call }) {
      const result = await backend.stixImport(args.bundle as Record<string, unknown>, call)
      const errors = (result.errors as string[] | undefined) ?? []
      return {
        structured: result,
        text: `stix_import: ${result.processed_objects} objects, ${result.applied_mutations} applied, ${result.rejected_mutations} rejected${errors.length ? `; first error: ${errors[0]}` : ''}`,
      }
    },
  },
  {
    name: 'stix_export',
    title: 'Export STIX (bounded)',
    description:
      'Export the workspace as STIX 2.1 objects in the export’s deterministic id order, a page at a time within max_payload_bytes. strict mode fails on unresolved findings; permissive leaves those objects out.',
    input: Type.Object(
      {
        mode: Type.Optional(
          Type.Union([Type.Literal('strict'), Type.Literal('permissive')], {
            description: 'Default permissive.',
          }),
        ),
        offset: Offset,
        max_payload_bytes: PayloadBudget,
      },
      { additionalProperties: false },
    ),
    output: Type.Object(
      {
        bundle_id: Type.String(),
        total_objects: Type.Integer(),
        objects: Type.Array(Type.Unknown()),
        page: PageSchema,
      },
      { additionalProperties: false },
    ),
    permission: 'read',
    annotations: READ,
    async run(args, { backend, call }) {
      const mode = (args.mode as 'strict' | 'permissive' | undefined) ?? 'permissive'
      const offset = (args.offset as number | undefined) ?? 0
      const budget = (args.max_payload_bytes as number | undefined) ?? DEFAULT_PAYLOAD_BYTES
      const exported = await backend.stixExport(mode, call)
      const from = Math.min(offset, exported.objects.length)
      const fitted = fitItems(exported.objects, from, budget, bytesOf({ bundle_id: exported.id }) + 200)
      return {
        structured: {
          bundle_id: exported.id,
          total_objects: exported.objects.length,
          objects: fitted.page,
          page: pageOf(fitted.more, 'objects', { ...args, offset: fitted.end }),
        },
        text: `stix_export: objects ${from}..${fitted.end} of ${exported.objects.length}${fitted.more ? '; more with page.next' : ''}`,
      }
    },
  },
]
