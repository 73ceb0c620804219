import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import { DEFAULT_PAYLOAD_MIN_BYTES } from '../kernel/image-source.js'
import { type CsvFormat, DEFAULT_CSV_FORMAT } from './csv-source.js'
import { GroupReader } from './csv-thread.js'
import { ImageFile } from './image-file.js'
import { type BadRowCounts, ImportReport } from './import-report.js'
import { type IdType, ImportRun, type InputGroup } from './import-run.js'

export type { InputGroup } from './import-run.js'

export interface CsvImportOptions {
  dir: string
  nodes: InputGroup[]
  relationships: InputGroup[]
  format?: Partial<CsvFormat>
  /** neo4j-admin's `--id-type`: ids are any text (default), or integers kept as integer id properties. */
  idType?: IdType
  /** Rejected rows allowed before the import stops (neo4j-admin's `--bad-tolerance`; default 1000). */
  badTolerance?: number
  /** Where rejected rows are listed. */
  reportPath: string
  /** Strings of this many UTF-8 bytes or more go to the payload file (the engine's default). */
  payloadMinBytes?: number
  /** Told every `PROGRESS_ROWS` rows and at the end. */
  onProgress?: (rows: number, rejected: number) => void
  now?: Date
}

export interface CsvImportSummary {
  storage_dir: string
  nodes: number
  relationships: number
  rows: number
  rejected: number
  rejected_by_kind: BadRowCounts
  report: string
  image_bytes: number
  payload_bytes: number
  seconds: number
  rows_per_second: number
}

export const DEFAULT_BAD_TOLERANCE = 1000

/**
 * `import-csv`: builds a store in an EMPTY directory from CSV files in neo4j-admin's format, writing its first
 * checkpoint image directly (no log, no engine): nodes stream into `graph_nodes` lines and relationships into
 * `graph_rels` lines as they are read, so memory holds the id maps (one entry per node with an id) and one batch,
 * never the CSV text. Rows that cannot be imported are listed in the report and skipped, up to the tolerance.
 * On any failure the directory is emptied again.
 */
export async function importCsv(options: CsvImportOptions): Promise<CsvImportSummary> {
  const started = performance.now()
  if (options.nodes.length === 0) invalid('give at least one --nodes file')
  let inputBytes = 0
  for (const group of [...options.nodes, ...options.relationships]) inputBytes += checkGroup(group)
  const created = prepareTarget(options.dir)
  const format = { ...DEFAULT_CSV_FORMAT, ...options.format }
  const report = new ImportReport(options.reportPath, options.badTolerance ?? DEFAULT_BAD_TOLERANCE)
  let image: ImageFile | null = null
  const reader = new GroupReader(
    [...options.nodes, ...options.relationships].map((g) => g.files),
    format,
  )
  try {
    image = new ImageFile(
      options.dir,
      options.now ?? new Date(),
      options.payloadMinBytes ?? DEFAULT_PAYLOAD_MIN_BYTES,
      inputBytes >= LARGE_INPUT_BYTES,
    )
    const run = new ImportRun(image, report, format, options.idType ?? 'string', options.onProgress)
    for (const group of options.nodes) await run.group(group, 'nodes', reader)
    for (const group of options.relationships) await run.group(group, 'relationships', reader)
    run.end()
    const written = await image.finish()
    const seconds = (performance.now() - started) / 1000
    options.onProgress?.(run.rows, report.total)
    return {
      storage_dir: options.dir,
      nodes: run.nextNode,
      relationships: run.nextRel,
      rows: run.rows,
      rejected: report.total,
      rejected_by_kind: report.counts,
      report: report.path,
      image_bytes: written.bytes,
      payload_bytes: written.payloadBytes,
      seconds: Math.round(seconds * 1000) / 1000,
      rows_per_second: Math.round(run.rows / Math.max(seconds, 0.001)),
    }
  } catch (error) {
    await image?.abandon()
    emptyTarget(options.dir, created)
    throw error
  } finally {
    await reader.close()
    report.close()
  }
}

const invalid = (message: string): never => {
  throw new EngineError('IMPORT_INPUT_INVALID', message)
}

/** Refuses a non-empty target; creates a missing one. Returns whether it created the directory. */
function prepareTarget(dir: string): boolean {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true })
    return true
  }
  if (!statSync(dir).isDirectory()) invalid(`${dir} is not a directory`)
  const entries = readdirSync(dir)
  if (entries.length > 0)
    throw new EngineError(
      'IMPORT_TARGET_NOT_EMPTY',
      `storage directory ${dir} is not empty (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); import-csv only builds a new store`,
    )
  return false
}

function emptyTarget(dir: string, created: boolean): void {
  if (created) rmSync(dir, { recursive: true, force: true })
  else for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true })
}

/** Input from this size on makes an image worth encoding on a worker thread from the first row. */
const LARGE_INPUT_BYTES = 4 * 1024 * 1024

/** Refuses a group without files or naming a file that is not there; returns the bytes its files hold. */
function checkGroup(group: InputGroup): number {
  if (group.files.length === 0) invalid('an input group names no file')
  let bytes = 0
  for (const file of group.files) {
    const stat = existsSync(file) ? statSync(file) : null
    if (stat === null || !stat.isFile()) invalid(`input file ${file} does not exist`)
    bytes += stat!.size
  }
  return bytes
}
