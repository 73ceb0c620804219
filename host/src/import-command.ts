import { readFileSync } from 'node:fs'
import { progressBar } from './progress-bar.js'

export interface ImportOptions {
  file: string
  url: string
  token: string
  workspaceId?: string | undefined
  /** Upper bound of one request body; kept under the server's SERVICE_HTTP_IMPORT_MAX_BODY_BYTES. */
  batchBytes: number
}

interface ImportResult {
  processed_objects: number
  applied_mutations: number
  rejected_mutations: number
  errors: string[]
  metrics?: Record<string, number>
}

type StixObject = { type?: unknown; id?: unknown; [key: string]: unknown }
const isRelationship = (o: StixObject) => o.type === 'relationship' || o.type === 'sighting'

/** Splits objects into request-sized batches, nodes before relationships so every endpoint exists first. */
export function batches(objects: StixObject[], maxBytes: number): StixObject[][] {
  const ordered = [...objects.filter((o) => !isRelationship(o)), ...objects.filter(isRelationship)]
  const out: StixObject[][] = []
  let current: StixObject[] = []
  let size = 0
  for (const object of ordered) {
    const bytes = Buffer.byteLength(JSON.stringify(object)) + 1
    if (current.length > 0 && size + bytes > maxBytes) {
      out.push(current)
      current = []
      size = 0
    }
    current.push(object)
    size += bytes
  }
  if (current.length > 0) out.push(current)
  return out
}

/**
 * Imports a large STIX bundle file through a running server, in ordered batches, with a progress bar.
 * Each batch is one atomic import; re-running after a failure is safe because import is idempotent.
 */
export async function importFile(options: ImportOptions): Promise<number> {
  const bundle = JSON.parse(readFileSync(options.file, 'utf8')) as { type?: unknown; objects?: StixObject[] }
  if (bundle.type !== 'bundle' || !Array.isArray(bundle.objects)) {
    process.stderr.write(`${options.file} is not a STIX bundle (type "bundle" with an objects array)\n`)
    return 2
  }
  const parts = batches(bundle.objects, options.batchBytes)
  const bar = progressBar('importing [{bar}] {value}/{total} objects | {rate} obj/s | eta {eta_formatted}')
  const totals: Record<string, number> = {}
  const started = performance.now()
  let done = 0
  bar.start(bundle.objects.length, 0, { rate: 0 })
  for (const objects of parts) {
    const response = await fetch(`${options.url.replace(/\/$/, '')}/v1/import/stix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        bundle: { type: 'bundle', objects },
        ...(options.workspaceId ? { workspace_id: options.workspaceId } : {}),
      }),
    })
    const body = (await response.json().catch(() => null)) as {
      ok?: boolean
      result?: ImportResult
      error?: { code: string; message: string }
    } | null
    if (!response.ok || body?.ok !== true || body.result === undefined) {
      bar.stop()
      process.stderr.write(
        `import failed at object ${done} (HTTP ${response.status}): ${body?.error?.code ?? ''} ${body?.error?.message ?? ''}\n`,
      )
      return 1
    }
    for (const [k, v] of Object.entries(body.result.metrics ?? {})) totals[k] = (totals[k] ?? 0) + v
    done += objects.length
    bar.update(done, { rate: Math.round(done / ((performance.now() - started) / 1000)) })
  }
  bar.stop()
  process.stdout.write(
    `${JSON.stringify({ file: options.file, objects: done, batches: parts.length, seconds: Math.round((performance.now() - started) / 100) / 10, metrics: totals })}\n`,
  )
  return 0
}
