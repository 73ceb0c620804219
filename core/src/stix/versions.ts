/**
 * The versions of the STIX objects of every workspace, as an engine ledger: when each version was added
 * (its commit time, in microseconds, unique and increasing so a reader paging by it never skips nor
 * repeats), and the text of versions the graph no longer holds (an older `modified` that arrived after a
 * newer one, or the version a newer one replaced). The current version's text stays in the graph only.
 * Entries commit in the same WAL record as the import that wrote them, and every checkpoint carries the
 * image, so date_added is stable across restarts and recovery.
 */
import { RepeatedStrings } from '../graph/repeated-strings.js'
import type { Ledger } from '../kernel/ledger.js'
import { compareVersions, timestampKey } from './timestamps.js'

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

/** One workspace's versions: by object id, and every (re)stamp in date-added order. */
export class WorkspaceVersions {
  readonly byId = new Map<string, VersionRow[]>()
  /** Parallel arrays in increasing `added`; an entry whose row was re-stamped since is stale. */
  readonly stamps: number[] = []
  readonly logRows: VersionRow[] = []

  row(id: string, version: string): VersionRow | undefined {
    const list = this.byId.get(id)
    if (list === undefined) return undefined
    // The same text is the common case; the instant decides otherwise ("…00Z" is "…00.000Z").
    for (const r of list) if (r.version === version) return r
    const key = versionKey(version)
    return list.find((r) => versionKey(r.version) === key)
  }

  /** The object's versions, oldest first. */
  versions(id: string): readonly VersionRow[] {
    return this.byId.get(id) ?? []
  }

  apply(t: RowTuple): void {
    const [id, type, version, spec, src, raw, added] = t
    let row = this.row(id, version)
    if (row === undefined) {
      row = { id, type, version, spec, src, raw, added }
      const list = this.byId.get(id)
      if (list === undefined) this.byId.set(id, [row])
      else {
        list.push(row)
        list.sort((a, b) => compareVersions(a.version, b.version))
      }
    } else {
      row.raw = raw
      if (row.added === added) return
      row.added = added
    }
    this.stamps.push(added)
    this.logRows.push(row)
  }

  /** Index of the first log entry added strictly after `micros`. */
  firstAfter(micros: number): number {
    let lo = 0
    let hi = this.stamps.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.stamps[mid] as number) <= micros) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** True when log entry `i` is the row's current stamp (not superseded by a re-stamp). */
  live(i: number): boolean {
    return this.logRows[i]?.added === this.stamps[i]
  }

  get size(): number {
    return this.byId.size
  }
}

export class StixVersions implements Ledger<VersionsEntry> {
  readonly name = STIX_VERSIONS_LEDGER
  private readonly workspaces = new Map<string, WorkspaceVersions>()
  /**
   * Rows read back from a checkpoint or the log hold a new string per field; type, version and spec repeat
   * across objects, so their rows share one (about 100 bytes a row after a restart).
   */
  private readonly strings = new RepeatedStrings()
  private readonly types = this.strings.key('type')
  private readonly versionStrings = this.strings.key('version')
  private readonly specs = this.strings.key('spec')
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
      t[1] = this.types.of(t[1])
      t[2] = this.versionStrings.of(t[2])
      t[3] = this.specs.of(t[3])
      w.apply(t)
      if (t[6] >= this.nextStamp) this.nextStamp = t[6] + 1
    }
  }

  *image(): Iterable<VersionsEntry> {
    const CHUNK = 1000
    for (const [id, w] of this.workspaces) {
      let rows: RowTuple[] = []
      for (let i = 0; i < w.logRows.length; i++) {
        if (!w.live(i)) continue
        const r = w.logRows[i] as VersionRow
        rows.push([r.id, r.type, r.version, r.spec, r.src, r.raw, r.added])
        if (rows.length === CHUNK) {
          yield { w: id, rows }
          rows = []
        }
      }
      if (rows.length > 0) yield { w: id, rows }
    }
  }
}
