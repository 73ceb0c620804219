import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import { READABLE_RECORD_FORMATS, RECORD_FORMAT, STORAGE_VERSION } from '../version.js'
import { writeFileAtomic, writeFileAtomicAsync } from './atomic-file.js'

export interface ManifestComponent {
  name: 'checkpoint' | 'previous_checkpoint'
  path: string
  sequence: number
  sha256: string
  bytes: number
}

/** The payload file (issue 39): its name and the bytes of it the checkpoints reference (synced before the switch). */
export interface ManifestPayloads {
  path: string
  bytes: number
}

/** Manifest V1: the reference's fields (value-wrapped ids and times) plus our component list. */
export interface Manifest {
  storage_version: string
  graph_id: { value: string }
  created_at: { value: string }
  updated_at: { value: string }
  record_format: string
  components: ManifestComponent[]
  /** Present once a checkpoint wrote a payload (record format JsonLinesV3). */
  payloads?: ManifestPayloads
}

export const MANIFEST_FILE = 'manifest.json'

const blank = (v: unknown) => typeof v !== 'string' || v.trim() === ''

export function newManifest(graphId: string, now: Date): Manifest {
  const at = now.toISOString()
  return {
    storage_version: STORAGE_VERSION,
    graph_id: { value: graphId },
    created_at: { value: at },
    updated_at: { value: at },
    record_format: RECORD_FORMAT,
    components: [],
  }
}

/**
 * Reads and validates the manifest. A different storage version or record format is incompatible (never
 * guessed at); anything unreadable or malformed is an integrity failure.
 */
export function readManifest(dir: string): Manifest | null {
  const path = join(dir, MANIFEST_FILE)
  if (!existsSync(path)) return null
  let parsed: Partial<Manifest>
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<Manifest>
  } catch (error) {
    throw new EngineError(
      'STORAGE_RECOVERY_FAILED',
      `manifest ${path} is not valid JSON: ${(error as Error).message}`,
    )
  }
  if (parsed === null || typeof parsed !== 'object') {
    throw new EngineError('STORAGE_RECOVERY_FAILED', `manifest ${path} is not an object`)
  }
  if (
    parsed.storage_version !== STORAGE_VERSION ||
    !READABLE_RECORD_FORMATS.includes(parsed.record_format as string)
  ) {
    throw new EngineError(
      'STORAGE_INCOMPATIBLE',
      `storage directory ${dir} has storage_version ${JSON.stringify(parsed.storage_version)} and record_format ${JSON.stringify(parsed.record_format)}; this build supports ${STORAGE_VERSION}/${READABLE_RECORD_FORMATS.join(', ')} only`,
    )
  }
  if (blank(parsed.graph_id?.value) || blank(parsed.created_at?.value) || blank(parsed.updated_at?.value)) {
    throw new EngineError(
      'STORAGE_RECOVERY_FAILED',
      `manifest ${path} has a blank graph_id, created_at or updated_at`,
    )
  }
  const components = Array.isArray(parsed.components) ? parsed.components : []
  for (const c of components) {
    if (
      blank(c.path) ||
      !/^[0-9a-f]{64}$/.test(c.sha256) ||
      !Number.isSafeInteger(c.sequence) ||
      c.path.includes('/')
    ) {
      throw new EngineError('STORAGE_RECOVERY_FAILED', `manifest ${path} lists a malformed component`)
    }
  }
  const payloads = parsed.payloads
  if (
    payloads !== undefined &&
    (payloads === null ||
      blank(payloads.path) ||
      payloads.path.includes('/') ||
      !Number.isSafeInteger(payloads.bytes) ||
      payloads.bytes < 0)
  )
    throw new EngineError('STORAGE_RECOVERY_FAILED', `manifest ${path} has a malformed payloads entry`)
  return { ...(parsed as Manifest), components }
}

export function writeManifest(dir: string, manifest: Manifest): void {
  writeFileAtomic(join(dir, MANIFEST_FILE), manifestText(manifest))
}

/** The same on the thread pool (a checkpoint's switch: the event loop does not wait for the fsyncs). */
export function writeManifestAsync(dir: string, manifest: Manifest): Promise<void> {
  return writeFileAtomicAsync(join(dir, MANIFEST_FILE), manifestText(manifest))
}

const manifestText = (manifest: Manifest) => `${JSON.stringify(manifest, null, 2)}\n`
