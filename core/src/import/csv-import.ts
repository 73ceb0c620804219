import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { EngineError } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import type { PropertyValue } from '../graph/types.js'
import { type ColumnSpec, type FileKind, type Header, parseHeader } from './csv-header.js'
import { type CsvFormat, type CsvRow, DEFAULT_CSV_FORMAT, readGroup } from './csv-source.js'
import { fieldValue } from './csv-values.js'
import { IMAGE_BATCH, NodeImageBatch, RelationshipImageBatch } from './image-batches.js'
import { ImageFile } from './image-file.js'
import { type BadRowCounts, ImportReport } from './import-report.js'

/** One `--nodes` or `--relationships` argument: its files (the first holds the header) and default labels or type. */
export interface InputGroup {
  files: string[]
  /** `--nodes=A:B=…`: labels every node of the group has (beside its `:LABEL` column). */
  labels?: string[]
  /** `--relationships=TYPE=…`: the type of rows whose `:TYPE` is empty or absent. */
  type?: string
}

export interface CsvImportOptions {
  dir: string
  nodes: InputGroup[]
  relationships: InputGroup[]
  format?: Partial<CsvFormat>
  /** neo4j-admin's `--id-type`: ids are any text (default), or integers kept as integer id properties. */
  idType?: 'string' | 'integer'
  /** Rejected rows allowed before the import stops (neo4j-admin's `--bad-tolerance`; default 1000). */
  badTolerance?: number
  /** Where rejected rows are listed. */
  reportPath: string
  /** Strings of this many UTF-8 bytes or more go to the payload file (the engine's default: 256). */
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
const PROGRESS_ROWS = 16384
const INTEGER_ID = /^[+-]?\d{1,18}$/
const TEMPORAL_TYPES = new Set(['date', 'datetime', 'localdatetime', 'time', 'localtime'])

/**
 * `import-csv`: builds a store in an EMPTY directory from CSV files in neo4j-admin's format, writing its first
 * checkpoint image directly (no log, no engine): nodes stream into `graph_nodes` lines and relationships into
 * `graph_rels` lines as they are read, so memory holds the id maps (one entry per node with an id) and one batch,
 * never the CSV text. Rows that cannot be imported are listed in the report and skipped, up to the tolerance.
 * On any failure the directory is emptied again.
 */
export async function importCsv(options: CsvImportOptions): Promise<CsvImportSummary> {
  const started = performance.now()
  const created = prepareTarget(options.dir)
  for (const group of [...options.nodes, ...options.relationships]) checkGroup(group)
  if (options.nodes.length === 0) invalid('give at least one --nodes file')
  const format = { ...DEFAULT_CSV_FORMAT, ...options.format }
  const report = new ImportReport(options.reportPath, options.badTolerance ?? DEFAULT_BAD_TOLERANCE)
  let image: ImageFile | null = null
  try {
    image = new ImageFile(options.dir, options.now ?? new Date(), options.payloadMinBytes ?? 256)
    const run = new ImportRun(image, report, format, options.idType ?? 'string', options.onProgress)
    for (const group of options.nodes) await run.group(group, 'nodes')
    for (const group of options.relationships) await run.group(group, 'relationships')
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
    image?.abandon()
    emptyTarget(options.dir, created)
    throw error
  } finally {
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

function checkGroup(group: InputGroup): void {
  if (group.files.length === 0) invalid('an input group names no file')
  for (const file of group.files) {
    if (!existsSync(file) || !statSync(file).isFile()) invalid(`input file ${file} does not exist`)
  }
}

/** The state of one import: id maps, the batches being filled, counts. */
class ImportRun {
  /** Node ids by id space, then by the id text of the CSV. */
  private readonly ids = new Map<string, Map<string, number>>()
  private nodes: NodeImageBatch
  private rels: RelationshipImageBatch
  nextNode = 0
  nextRel = 0
  rows = 0

  constructor(
    private readonly image: ImageFile,
    private readonly report: ImportReport,
    private readonly format: CsvFormat,
    private readonly idType: 'string' | 'integer',
    private readonly onProgress: ((rows: number, rejected: number) => void) | undefined,
  ) {
    this.nodes = new NodeImageBatch(DEFAULT_WORKSPACE_ID, image.payloads)
    this.rels = new RelationshipImageBatch(DEFAULT_WORKSPACE_ID, image.payloads)
  }

  async group(group: InputGroup, kind: FileKind): Promise<void> {
    // every node is in the image before the first relationship (the loader links them to their nodes)
    if (kind === 'relationships') this.flushNodes()
    let header: Header | null = null
    let properties: { at: number; spec: Extract<ColumnSpec, { role: 'property' | 'id' }> }[] = []
    for await (const row of readGroup(group.files, this.format)) {
      if (header === null) {
        try {
          header = parseHeader(row.fields, kind)
        } catch (error) {
          invalid(`${row.file}: ${(error as Error).message}`)
        }
        properties = header!.columns.flatMap((spec, at) =>
          spec.role === 'property' || (spec.role === 'id' && spec.name !== null) ? [{ at, spec }] : [],
        )
        if (header!.columns.some((c) => c.role === 'property' && TEMPORAL_TYPES.has(c.type)))
          this.image.temporal = true
        continue
      }
      this.rows++
      if (row.fields.length !== header!.columns.length) {
        this.report.reject(
          'field_count',
          row.file,
          row.row,
          `${row.fields.length} fields where the header has ${header!.columns.length}`,
        )
      } else {
        const props = this.properties(row, properties)
        if (props !== null) {
          if (kind === 'nodes') this.node(row, header!, group, props)
          else this.relationship(row, header!, group, props)
        }
      }
      if (this.rows % PROGRESS_ROWS === 0) this.onProgress?.(this.rows, this.report.total)
    }
    if (header === null) invalid(`${group.files[0]} has no header line`)
  }

  /** The row's property names and values (empty fields have none); null when a value is not of its type. */
  private properties(
    row: CsvRow,
    columns: { at: number; spec: Extract<ColumnSpec, { role: 'property' | 'id' }> }[],
  ): { names: string[]; values: PropertyValue[] } | null {
    const names: string[] = []
    const values: PropertyValue[] = []
    for (const { at, spec } of columns) {
      const text = row.fields[at]!
      let value: PropertyValue | undefined
      if (spec.role === 'id') {
        const key = this.idKey(text)
        value = key === null ? undefined : this.idType === 'integer' ? BigInt(key) : key
      } else {
        try {
          value = fieldValue(text, spec.type, spec.array, this.format.arrayDelimiter)
        } catch (error) {
          this.report.reject('type_error', row.file, row.row, `${spec.name}: ${(error as Error).message}`)
          return null
        }
      }
      if (value === undefined) continue
      names.push(spec.name!)
      values.push(value)
    }
    return { names, values }
  }

  private node(
    row: CsvRow,
    header: Header,
    group: InputGroup,
    props: { names: string[]; values: PropertyValue[] },
  ): void {
    const id = this.nextNode
    if (header.id >= 0) {
      const spec = header.columns[header.id] as Extract<ColumnSpec, { role: 'id' }>
      const key = this.idKey(row.fields[header.id]!)
      if (key === null) {
        this.report.reject('bad_id', row.file, row.row, this.badId(':ID', row.fields[header.id]!))
        return
      }
      let space = this.ids.get(spec.space)
      if (space === undefined) {
        space = new Map()
        this.ids.set(spec.space, space)
      }
      if (space.has(key)) {
        this.report.reject(
          'duplicate_id',
          row.file,
          row.row,
          `id ${JSON.stringify(key)} is already taken in id space ${spec.space}`,
        )
        return
      }
      space.set(key, id)
    }
    const labels = this.labels(row, header, group)
    this.nextNode++
    this.nodes.add(id, labels.join('\u0000'), labels, props.names.join('\u0000'), props.names, props.values)
    if (this.nodes.size === IMAGE_BATCH) this.flushNodes()
  }

  private labels(row: CsvRow, header: Header, group: InputGroup): string[] {
    const labels = [...(group.labels ?? [])]
    const at = header.columns.findIndex((c) => c.role === 'label')
    if (at >= 0)
      for (const label of row.fields[at]!.split(this.format.arrayDelimiter)) {
        const name = label.trim()
        if (name !== '' && !labels.includes(name)) labels.push(name)
      }
    return labels
  }

  private relationship(
    row: CsvRow,
    header: Header,
    group: InputGroup,
    props: { names: string[]; values: PropertyValue[] },
  ): void {
    const start = this.endpoint(row, header, header.start)
    const end = this.endpoint(row, header, header.end)
    if (start === undefined || end === undefined) return
    const type = (header.type >= 0 ? row.fields[header.type]!.trim() : '') || group.type
    if (type === undefined || type === '') {
      this.report.reject(
        'missing_type',
        row.file,
        row.row,
        'no :TYPE field and no type for the group (--relationships=TYPE=…)',
      )
      return
    }
    this.rels.add(this.nextRel++, type, start, end, props.names, props.values)
    if (this.rels.size === IMAGE_BATCH) {
      this.image.add(this.rels.line())
      this.rels = new RelationshipImageBatch(DEFAULT_WORKSPACE_ID, this.image.payloads)
    }
  }

  /** The id map's key for an id field (integer ids in canonical form, so `07` and `7` meet); null if none. */
  private idKey(text: string): string | null {
    if (this.idType === 'string') return text === '' ? null : text
    const t = text.trim()
    return INTEGER_ID.test(t) ? BigInt(t).toString() : null
  }

  private badId(role: string, text: string): string {
    return text.trim() === ''
      ? `the ${role} field is empty`
      : `${role} ${JSON.stringify(text)} is not an integer (--id-type integer)`
  }

  /** The node a `:START_ID`/`:END_ID` field names; reports the row when there is none. */
  private endpoint(row: CsvRow, header: Header, at: number): number | undefined {
    const spec = header.columns[at] as Extract<ColumnSpec, { role: 'start' | 'end' }>
    const key = this.idKey(row.fields[at]!)
    const role = spec.role === 'start' ? ':START_ID' : ':END_ID'
    if (key === null) {
      this.report.reject('bad_id', row.file, row.row, this.badId(role, row.fields[at]!))
      return undefined
    }
    const node = this.ids.get(spec.space)?.get(key)
    if (node === undefined)
      this.report.reject(
        'dangling_relationship',
        row.file,
        row.row,
        `${role} ${JSON.stringify(key)} names no node in id space ${spec.space}`,
      )
    return node
  }

  private flushNodes(): void {
    if (this.nodes.size === 0) return
    this.image.add(this.nodes.line())
    this.nodes = new NodeImageBatch(DEFAULT_WORKSPACE_ID, this.image.payloads)
  }

  /** Writes the last partial batches and the id counters. */
  end(): void {
    this.flushNodes()
    if (this.rels.size > 0) this.image.add(this.rels.line())
    this.image.add(
      JSON.stringify({
        kind: 'graph_counters',
        workspace: DEFAULT_WORKSPACE_ID,
        next_node_id: this.nextNode,
        next_relationship_id: this.nextRel,
      }),
    )
  }
}
