/**
 * The versions of the STIX objects of every workspace, as an engine ledger: when each version was added
 * (its commit time, in microseconds, unique and increasing so a reader paging by it never skips nor
 * repeats), and the text of versions the graph no longer holds (an older `modified` that arrived after a
 * newer one, or the version a newer one replaced). The current version's text stays in the graph only.
 * Entries commit in the same WAL record as the import that wrote them, and every checkpoint carries the
 * image, so date_added is stable across restarts and recovery.
 */
import { grown } from '../graph/id-list.js'
import type { Ledger } from '../kernel/ledger.js'
import { StixIdTable } from './stix-id-table.js'
import { compareVersions, timestampKey } from './timestamps.js'
import { VersionColumn } from './version-column.js'

export const STIX_VERSIONS_LEDGER = 'stix.versions'

export interface VersionRow {
  id: string
  type: string
  /** `modified`, else `created`, else '' as the object gives it. */
  version: string
  /** spec_version of this version ('2.1' when the object does not say). */
  spec: string
  /** Source ref of a relationship or sighting: the node its edge leaves from. */
  src: string | null
  /** The object's canonical text when the graph does not hold this version. */
  raw: string | null
  /** Date added, microseconds since the epoch. */
  added: number
}

/** [id, type, version, spec, src, raw, added]: one row, compact because an import writes one per object. */
export type RowTuple = [string, string, string, string, string | null, string | null, number]

export interface VersionsEntry {
  w: string
  rows: RowTuple[]
}

const versionKey = (version: string) => timestampKey(version) ?? version

const NO_ROW = -1

/** `column`, or a doubled copy of it when it has no room for `need` entries. */
const room = <T extends Float64Array | Int32Array | Uint16Array>(column: T, need: number): T =>
  need <= column.length ? column : grown(column, need)

/** Small dictionary of repeated names (STIX types, spec versions) as 16-bit codes. */
class Codes {
  readonly names: string[] = []
  private readonly codes = new Map<string, number>()

  code(name: string): number {
    let code = this.codes.get(name)
    if (code === undefined) {
      code = this.names.length
      if (code > 0xffff) throw new Error('more than 65,536 distinct STIX types or spec versions')
      this.names.push(name)
      this.codes.set(name, code)
    }
    return code
  }
}

/**
 * One workspace's versions, as columns: one row per version (an import writes one per object, so at millions
 * of objects a row object, a list per id and log entries of objects were ~210 bytes of heap each besides the
 * strings; then columns of ~80 bytes with the id, version and source-ref strings beside them, ~110 more).
 * Ids are keys of a StixIdTable and versions a VersionColumn, so a row is ~60 bytes, all in typed arrays. An
 * object's versions are chained in version order from its first row; the log of (re)stamps is two typed
 * arrays in increasing `added`. Rows are handed out as `VersionRow` views.
 */
export class WorkspaceVersions {
  private readonly ids = new StixIdTable()
  /** Row of each id key's oldest version, -1 for an id seen only as a source ref. */
  private firstRow = new Int32Array(0)
  /** Objects with at least one row. */
  private objects = 0
  /** Id key of each row, and of its source ref (-1: none). */
  private keys = new Int32Array(0)
  private srcKeys = new Int32Array(0)
  private readonly versionTexts = new VersionColumn()
  /** Text of the versions the graph does not hold (few): by row. */
  private readonly raws = new Map<number, string>()
  private readonly typeCodes = new Codes()
  private readonly specCodes = new Codes()
  private types = new Uint16Array(0)
  private specs = new Uint16Array(0)
  private added = new Float64Array(0)
  /** The row of the object's next version, or -1. */
  private next = new Int32Array(0)
  private rows = 0
  /** The log: stamps in increasing order, and the row each stamped; an entry re-stamped since is stale. */
  private stamps = new Float64Array(0)
  private logRows = new Int32Array(0)
  private logLength = 0

  /** The row of the oldest version of `id`, or -1. */
  private first(id: string): number {
    const key = this.ids.find(id)
    return key === NO_ROW ? NO_ROW : (this.firstRow[key] as number)
  }

  /** The row of `id` at `version` (the same text, else the same instant), or -1. */
  private find(id: string, version: string): number {
    const first = this.first(id)
    if (first === NO_ROW) return NO_ROW
    // The same text is the common case; the instant decides otherwise ("…00Z" is "…00.000Z").
    for (let r = first; r !== NO_ROW; r = this.next[r] as number)
      if (this.versionTexts.text(r) === version) return r
    const key = versionKey(version)
    for (let r = first; r !== NO_ROW; r = this.next[r] as number)
      if (versionKey(this.versionTexts.text(r)) === key) return r
    return NO_ROW
  }

  private view(r: number): VersionRow {
    const src = this.srcKeys[r] as number
    return {
      id: this.ids.id(this.keys[r] as number),
      type: this.typeCodes.names[this.types[r] as number] as string,
      version: this.versionTexts.text(r),
      spec: this.specCodes.names[this.specs[r] as number] as string,
      src: src === NO_ROW ? null : this.ids.id(src),
      raw: this.raws.get(r) ?? null,
      added: this.added[r] as number,
    }
  }

  row(id: string, version: string): VersionRow | undefined {
    const r = this.find(id, version)
    return r === NO_ROW ? undefined : this.view(r)
  }

  /** The object's versions, oldest first. */
  versions(id: string): readonly VersionRow[] {
    const out: VersionRow[] = []
    for (let r = this.first(id); r !== NO_ROW; r = this.next[r] as number) out.push(this.view(r))
    return out
  }

  /** The key of `id`, a new one with no rows yet when it is new. */
  private keyOf(id: string): number {
    const key = this.ids.key(id)
    if (key >= this.firstRow.length) {
      const from = this.firstRow.length
      this.firstRow = grown(this.firstRow, key + 1)
      this.firstRow.fill(NO_ROW, from)
    }
    return key
  }

  private append(t: RowTuple): number {
    const [id, type, version, spec, src, raw, added] = t
    const r = this.rows++
    this.types = room(this.types, this.rows)
    this.specs = room(this.specs, this.rows)
    this.added = room(this.added, this.rows)
    this.next = room(this.next, this.rows)
    this.keys = room(this.keys, this.rows)
    this.srcKeys = room(this.srcKeys, this.rows)
    const key = this.keyOf(id)
    this.keys[r] = key
    this.srcKeys[r] = src === null ? NO_ROW : this.keyOf(src)
    this.versionTexts.set(r, version)
    if (raw !== null) this.raws.set(r, raw)
    this.types[r] = this.typeCodes.code(type)
    this.specs[r] = this.specCodes.code(spec)
    this.added[r] = added
    this.next[r] = NO_ROW
    // Linked in version order, after the versions that compare equal (as a stable sort would place it).
    const first = this.firstRow[key] as number
    if (first === NO_ROW) this.objects++
    if (first === NO_ROW || compareVersions(version, this.versionTexts.text(first)) < 0) {
      this.next[r] = first
      this.firstRow[key] = r
      return r
    }
    let at = first
    for (;;) {
      const after = this.next[at] as number
      if (after === NO_ROW || compareVersions(version, this.versionTexts.text(after)) < 0) break
      at = after
    }
    this.next[r] = this.next[at] as number
    this.next[at] = r
    return r
  }

  apply(t: RowTuple): void {
    const [id, , version, , , raw, added] = t
    let r = this.find(id, version)
    if (r === NO_ROW) r = this.append(t)
    else {
      if (raw === null) this.raws.delete(r)
      else this.raws.set(r, raw)
      if (this.added[r] === added) return
      this.added[r] = added
    }
    this.stamps = room(this.stamps, this.logLength + 1)
    this.logRows = room(this.logRows, this.logLength + 1)
    this.stamps[this.logLength] = added
    this.logRows[this.logLength] = r
    this.logLength++
  }

  /** Entries in the log of (re)stamps, stale ones included. */
  get logSize(): number {
    return this.logLength
  }

  /** Index of the first log entry added strictly after `micros`. */
  firstAfter(micros: number): number {
    let lo = 0
    let hi = this.logLength
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.stamps[mid] as number) <= micros) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** True when log entry `i` is the row's current stamp (not superseded by a re-stamp). */
  live(i: number): boolean {
    return i < this.logLength && this.added[this.logRows[i] as number] === this.stamps[i]
  }

  /** The row of log entry `i`. */
  logRow(i: number): VersionRow {
    return this.view(this.logRows[i] as number)
  }

  /** Live log entries as tuples, in log order (a checkpoint's image). */
  *liveTuples(): Iterable<RowTuple> {
    for (let i = 0; i < this.logLength; i++) {
      if (!this.live(i)) continue
      const r = this.logRows[i] as number
      const v = this.view(r)
      yield [v.id, v.type, v.version, v.spec, v.src, v.raw, v.added]
    }
  }

  get size(): number {
    return this.objects
  }
}

export class StixVersions implements Ledger<VersionsEntry> {
  readonly name = STIX_VERSIONS_LEDGER
  private readonly workspaces = new Map<string, WorkspaceVersions>()
  /** The next free stamp: stamps are handed out before commit and never reused, gaps allowed. */
  private nextStamp = 0

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** A fresh date-added stamp: the clock in microseconds, or one past the last stamp when the clock lags. */
  stamp(): number {
    const value = Math.max(this.nowMs() * 1000, this.nextStamp)
    this.nextStamp = value + 1
    return value
  }

  workspace(id: string): WorkspaceVersions | undefined {
    return this.workspaces.get(id)
  }

  /** Workspaces holding at least one recorded STIX object. */
  workspaceIds(): string[] {
    return [...this.workspaces.entries()].filter(([, w]) => w.size > 0).map(([id]) => id)
  }

  /** Keeps `nextStamp`: a stamp handed out before a storage failure is never reused (date-added order holds). */
  reset(): void {
    this.workspaces.clear()
  }

  apply(entry: VersionsEntry): void {
    let w = this.workspaces.get(entry.w)
    if (w === undefined) {
      w = new WorkspaceVersions()
      this.workspaces.set(entry.w, w)
    }
    for (const t of entry.rows) {
      w.apply(t)
      if (t[6] >= this.nextStamp) this.nextStamp = t[6] + 1
    }
  }

  *image(): Iterable<VersionsEntry> {
    const CHUNK = 1000
    for (const [id, w] of this.workspaces) {
      let rows: RowTuple[] = []
      for (const tuple of w.liveTuples()) {
        rows.push(tuple)
        if (rows.length === CHUNK) {
          yield { w: id, rows }
          rows = []
        }
      }
      if (rows.length > 0) yield { w: id, rows }
    }
  }
}
