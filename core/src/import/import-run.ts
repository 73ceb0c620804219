import { EngineError } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import type { PropertyValue } from '../graph/types.js'
import { type ColumnSpec, type FileKind, type Header, parseHeader } from './csv-header.js'
import type { CsvFormat } from './csv-source.js'
import type { GroupReader } from './csv-thread.js'
import { fieldValue } from './csv-values.js'
import { IdSpace } from './id-space.js'
import { IMAGE_BATCH, NodeImageBatch, RelationshipImageBatch } from './image-batches.js'
import type { ImageFile } from './image-file.js'
import type { ImportReport } from './import-report.js'
import { PackedRow } from './packed-rows.js'
import { MAX_PROPERTY_COLUMNS, RowValues } from './row-values.js'

/** One `--nodes` or `--relationships` argument: its files (the first holds the header) and default labels or type. */
export interface InputGroup {
  files: string[]
  /** `--nodes=A:B=…`: labels every node of the group has (beside its `:LABEL` column). */
  labels?: string[]
  /** `--relationships=TYPE=…`: the type of rows whose `:TYPE` is empty or absent. */
  type?: string
}

export type IdType = 'string' | 'integer'
type IdKey = string | number
type PropertyColumn = { at: number; spec: Extract<ColumnSpec, { role: 'property' | 'id' }> }

const PROGRESS_ROWS = 16384
const TEMPORAL_TYPES = new Set(['date', 'datetime', 'localdatetime', 'time', 'localtime'])
const INTEGER_ID = /^[+-]?\d{1,19}$/
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

const invalid = (message: string): never => {
  throw new EngineError('IMPORT_INPUT_INVALID', message)
}

/** What a group's header decides once, so a row costs lookups by position and no string building. */
interface GroupPlan {
  header: Header
  properties: PropertyColumn[]
  /** Key orders by the set of properties a row has (bit i: `properties[i]` present). */
  keyOrders: Map<number, { key: string; names: string[] }>
  idSpace: IdSpace | null
  startSpace: IdSpace | null
  endSpace: IdSpace | null
  label: number
  /** The group's labels and their dictionary key, when no `:LABEL` column adds any. */
  labels: string[]
  labelKey: string
}

/** The state of one import: id maps, the batches being filled, counts. */
export class ImportRun {
  /** Node ids by id space, then by the id (its text, or its value for integer ids). */
  private readonly ids = new Map<string, IdSpace>()
  private nodes: NodeImageBatch
  private rels: RelationshipImageBatch
  /** Reused for every row: the present properties' values (the batches copy what they keep). */
  private readonly values = new RowValues()
  nextNode = 0
  nextRel = 0
  rows = 0

  constructor(
    private readonly image: ImageFile,
    private readonly report: ImportReport,
    private readonly format: CsvFormat,
    private readonly idType: IdType,
    private readonly onProgress: ((rows: number, rejected: number) => void) | undefined,
  ) {
    this.nodes = new NodeImageBatch(DEFAULT_WORKSPACE_ID, image.payloads)
    this.rels = new RelationshipImageBatch(DEFAULT_WORKSPACE_ID, image.payloads)
  }

  /** Imports the group `reader` reads next. */
  async group(group: InputGroup, kind: FileKind, reader: GroupReader): Promise<void> {
    // every node is in the image before the first relationship (the loader links them to their nodes)
    if (kind === 'relationships') this.flushNodes()
    let plan: GroupPlan | null = null
    // one row object, moved along the records: no object per row
    const row = new PackedRow()
    for await (const batch of reader.group()) {
      const count = batch.rows.rowEnds.length
      row.file = batch.file
      for (let i = 0; i < count; i++) {
        row.row = batch.firstRow + i
        row.at(batch.rows, i)
        if (plan === null) {
          plan = this.plan(row, kind, group)
          continue
        }
        this.rows++
        if (row.count !== plan.header.columns.length) {
          const reason = `${row.count} fields where the header has ${plan.header.columns.length}`
          this.report.reject('field_count', row.file, row.row, reason)
        } else {
          const present = this.properties(row, plan.properties)
          if (present >= 0) {
            if (kind === 'nodes') this.node(row, plan, present)
            else this.relationship(row, plan, group, present)
          }
        }
        if (this.rows % PROGRESS_ROWS === 0) this.onProgress?.(this.rows, this.report.total)
      }
      await this.image.send()
    }
    if (plan === null) invalid(`${group.files[0]} has no header line`)
  }

  private plan(row: PackedRow, kind: FileKind, group: InputGroup): GroupPlan {
    let header: Header
    try {
      header = parseHeader(row.fields(), kind)
    } catch (error) {
      return invalid(`${row.file}: ${(error as Error).message}`)
    }
    const properties = header.columns.flatMap((spec, at) =>
      spec.role === 'property' || (spec.role === 'id' && spec.name !== null) ? [{ at, spec }] : [],
    )
    if (properties.length > MAX_PROPERTY_COLUMNS)
      invalid(`${row.file}: more than ${MAX_PROPERTY_COLUMNS} property columns in one header`)
    if (header.columns.some((c) => c.role === 'property' && TEMPORAL_TYPES.has(c.type)))
      this.image.temporal = true
    const space = (at: number) =>
      at < 0 ? null : this.space((header.columns[at] as { space: string }).space)
    const labels = [...new Set(group.labels ?? [])]
    return {
      header,
      properties,
      keyOrders: new Map(),
      idSpace: space(header.id),
      startSpace: space(header.start),
      endSpace: space(header.end),
      label: header.columns.findIndex((c) => c.role === 'label'),
      labels,
      labelKey: labels.join('\u0000'),
    }
  }

  private space(name: string): IdSpace {
    let space = this.ids.get(name)
    if (space === undefined) {
      space = new IdSpace()
      this.ids.set(name, space)
    }
    return space
  }

  /**
   * Converts the row's properties into `this.values` (empty fields have none); returns the set of present
   * ones as bits, or -1 when a value is not of its type (the row is reported).
   */
  private properties(row: PackedRow, columns: PropertyColumn[]): number {
    const values = this.values
    values.clear()
    let present = 0
    for (let i = 0; i < columns.length; i++) {
      const { at, spec } = columns[i]!
      if (spec.role === 'id') {
        const key = this.idKey(row, at)
        if (key === null) continue
        // an integer id is a number exactly when it is a safe integer (see idKey)
        if (this.idType === 'string') values.push(key as string)
        else if (typeof key === 'number') values.pushInt(key)
        else values.push(BigInt(key))
        present |= 1 << i
        continue
      }
      // a short integer is read without making the field's string (what scalarValue gives for its text)
      const short = spec.type === 'int' && !spec.array ? row.shortInteger(at) : Number.NaN
      if (!Number.isNaN(short)) {
        values.pushInt(short)
        present |= 1 << i
        continue
      }
      let value: PropertyValue | undefined
      try {
        value = fieldValue(row.field(at), spec.type, spec.array, this.format.arrayDelimiter)
      } catch (error) {
        this.report.reject('type_error', row.file, row.row, `${spec.name}: ${(error as Error).message}`)
        return -1
      }
      if (value === undefined) continue
      present |= 1 << i
      values.push(value)
    }
    return present
  }

  private keyOrder(plan: GroupPlan, present: number): { key: string; names: string[] } {
    let order = plan.keyOrders.get(present)
    if (order === undefined) {
      const names = plan.properties.flatMap((p, i) => (present & (1 << i) ? [p.spec.name!] : []))
      order = { key: names.join('\u0000'), names }
      plan.keyOrders.set(present, order)
    }
    return order
  }

  private node(row: PackedRow, plan: GroupPlan, present: number): void {
    const id = this.nextNode
    const space = plan.idSpace
    if (space !== null) {
      const key = this.idKey(row, plan.header.id)
      if (key === null) {
        this.report.reject('bad_id', row.file, row.row, this.badId(':ID', row.field(plan.header.id)))
        return
      }
      if (space.has(key)) {
        const name = (plan.header.columns[plan.header.id] as { space: string }).space
        const reason = `id ${JSON.stringify(row.field(plan.header.id))} is already taken in id space ${name}`
        this.report.reject('duplicate_id', row.file, row.row, reason)
        return
      }
      space.set(key, id)
    }
    this.nextNode++
    const order = this.keyOrder(plan, present)
    if (plan.label < 0) this.nodes.add(id, plan.labelKey, plan.labels, order.key, order.names, this.values)
    else {
      const labels = this.labels(row.field(plan.label), plan.labels)
      this.nodes.add(id, labels.join('\u0000'), labels, order.key, order.names, this.values)
    }
    if (this.nodes.size === IMAGE_BATCH) this.flushNodes()
  }

  private labels(field: string, group: readonly string[]): string[] {
    const labels = [...group]
    for (const label of field.split(this.format.arrayDelimiter)) {
      const name = label.trim()
      if (name !== '' && !labels.includes(name)) labels.push(name)
    }
    return labels
  }

  private relationship(row: PackedRow, plan: GroupPlan, group: InputGroup, present: number): void {
    const { header } = plan
    const start = this.endpoint(row, header, header.start, plan.startSpace!)
    const end = this.endpoint(row, header, header.end, plan.endSpace!)
    if (start === undefined || end === undefined) return
    const type = (header.type >= 0 ? row.field(header.type).trim() : '') || group.type
    if (type === undefined || type === '') {
      const reason = 'no :TYPE field and no type for the group (--relationships=TYPE=…)'
      this.report.reject('missing_type', row.file, row.row, reason)
      return
    }
    this.rels.add(this.nextRel++, type, start, end, this.keyOrder(plan, present), this.values)
    if (this.rels.size === IMAGE_BATCH) {
      this.image.add(this.rels.line())
      this.rels = new RelationshipImageBatch(DEFAULT_WORKSPACE_ID, this.image.payloads)
    }
  }

  /** The node a `:START_ID`/`:END_ID` field names; reports the row when there is none. */
  private endpoint(row: PackedRow, header: Header, at: number, space: IdSpace): number | undefined {
    const key = this.idKey(row, at)
    const spec = header.columns[at] as Extract<ColumnSpec, { role: 'start' | 'end' }>
    const role = spec.role === 'start' ? ':START_ID' : ':END_ID'
    if (key === null) {
      this.report.reject('bad_id', row.file, row.row, this.badId(role, row.field(at)))
      return undefined
    }
    const node = space.get(key)
    if (node === undefined) {
      const reason = `${role} ${JSON.stringify(row.field(at))} names no node in id space ${spec.space}`
      this.report.reject('dangling_relationship', row.file, row.row, reason)
    }
    return node
  }

  /**
   * The id map's key for an id field; null if it is none. Integer ids are keyed by their value (a number when
   * it is exact, so `07` and `7` meet and the map hashes no string), text ids by their text.
   */
  private idKey(row: PackedRow, at: number): IdKey | null {
    if (this.idType === 'string') {
      const text = row.field(at)
      return text === '' ? null : text
    }
    const short = row.shortInteger(at)
    if (!Number.isNaN(short)) return short
    const t = row.field(at).trim()
    if (!INTEGER_ID.test(t)) return null
    const v = BigInt(t)
    return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString()
  }

  private badId(role: string, text: string): string {
    return text.trim() === ''
      ? `the ${role} field is empty`
      : `${role} ${JSON.stringify(text)} is not an integer (--id-type integer)`
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
