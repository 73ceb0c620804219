import { Readable } from 'node:stream'
import multipart from '@fastify/multipart'
import type { ImportResult, StixImportRequest } from '@service/core/stix'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import { errorResponses, HttpError } from '@service/plugin-errors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { readFileImport } from './multipart.js'
import {
  ExportQuery,
  ExportResponse,
  ImportBody,
  ImportResponse,
  ValidateBody,
  ValidateResponse,
} from './schemas.js'

export interface StixPluginOptions {
  /** Body limit of the import and validate routes (SERVICE_HTTP_IMPORT_MAX_BODY_BYTES); 413 above it. */
  importMaxBodyBytes: number
  /** Called with every import result (e.g. to count service_stix_import_records_total by outcome). */
  onImport?: (result: ImportResult) => void
}

async function stixPlugin(app: FastifyInstance, options: StixPluginOptions): Promise<void> {
  const { importMaxBodyBytes } = options
  const engine = app.engine
  const run = async (input: StixImportRequest) => {
    const report = await engine.stix.import(input)
    options.onImport?.(report.result)
    return { ok: true as const, result: report.result }
  }
  const importErrors = errorResponses(400, 401, 404, 413, 415, 429, 503, 504)

  app.post<{ Body: ImportBody }>(
    '/v1/import/stix',
    {
      bodyLimit: importMaxBodyBytes,
      schema: {
        tags: ['stix'],
        summary: 'Import a STIX 2.1 bundle (one atomic transaction)',
        body: ImportBody,
        response: { 200: ImportResponse, ...importErrors },
      },
    },
    async (request) => {
      const body = request.body
      return run({
        bundle: body.bundle,
        evidence: body.evidence,
        workspaceId: body.workspace_id,
        sessionId: body.session_id,
        budgetRef: body.budget_ref,
      })
    },
  )

  // Multipart parsing is registered in a child context: only the file route accepts multipart bodies.
  await app.register(async (child) => {
    await child.register(multipart, { limits: { fileSize: importMaxBodyBytes, files: 4, fields: 16 } })
    child.post(
      '/v1/import/stix/file',
      {
        bodyLimit: importMaxBodyBytes,
        schema: {
          tags: ['stix'],
          summary: 'Import a multipart .json or .stix file',
          consumes: ['multipart/form-data'],
          response: { 200: ImportResponse, ...importErrors },
        },
      },
      async (request) => {
        const length = Number(request.headers['content-length'] ?? 0)
        if (length > importMaxBodyBytes)
          throw new HttpError('PAYLOAD_TOO_LARGE', 413, 'request body exceeds the configured limit')
        const form = await readFileImport(request)
        return run({
          bundle: form.bundle,
          workspaceId: form.workspace_id,
          sessionId: form.session_id ?? 'session--http-import-stix',
          budgetRef: form.budget_ref ?? 'budget--http-import-stix',
        })
      },
    )
  })

  app.post<{ Body: ValidateBody }>(
    '/v1/stix/validate',
    {
      bodyLimit: importMaxBodyBytes,
      schema: {
        tags: ['stix'],
        summary: 'Validate a bundle (with correction playbooks) or the stored graph',
        body: ValidateBody,
        response: { 200: ValidateResponse, ...errorResponses(400, 401, 404, 413, 415, 429, 502, 503, 504) },
      },
    },
    async (request) => {
      const body = request.body
      const result = await engine.stix.validate(
        {
          source: body.source,
          bundle: body.bundle,
          workspaceId: body.workspace_id,
          sessionId: body.session_id,
          budgetRef: body.budget_ref,
          snapshotId: body.snapshot_id,
        },
        { signal: request.abortSignal },
      )
      if (result.persistence !== null) options.onImport?.(result.persistence)
      return { ok: true as const, result }
    },
  )

  app.get<{ Querystring: ExportQuery }>(
    '/v1/export/stix',
    {
      schema: {
        tags: ['stix'],
        summary: 'Deterministic STIX 2.1 export (raw bundle, RFC 8785 canonical JSON)',
        querystring: ExportQuery,
        response: { 200: ExportResponse, ...errorResponses(400, 401, 404, 429, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const q = request.query
      const out = await engine.stix.export(
        {
          workspaceId: q.workspace_id,
          snapshotId: q.snapshot_id,
          transactionId: q.transaction_id,
          exporterVersion: q.exporter_version,
          mode: q.mode,
          profile: q.profile,
        },
        { signal: request.abortSignal },
      )
      // Streamed piece by piece with its exact length: a large export is never one string nor one buffer.
      return reply
        .type('application/json; charset=utf-8')
        .header('content-length', out.byteLength)
        .send(Readable.from(out.pieces(), { objectMode: false }))
    },
  )
}

export default fp(stixPlugin, {
  name: '@service/plugin-stix',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', ENGINE_PLUGIN],
})
