/**
 * What an import tells the versions ledger, and the STIX 2.1 rule it enforces: the latest `modified` is the
 * current version, so an older version arriving after a newer one never replaces it (the writer counts it
 * as a duplicate) but is kept here as a version. Rows are stamped as they are recorded, inside the
 * import's transaction, so their date_added is the commit's time and increases with commit order.
 */
import type { ParsedRecord } from './bundle.js'
import { endpoints } from './mapping.js'
import type { OutcomeStatus } from './outcomes.js'
import { compareVersions, versionOf } from './timestamps.js'
import type { RowTuple, StixVersions, VersionsEntry } from './versions.js'

const specOf = (object: Record<string, unknown>) =>
  typeof object.spec_version === 'string' ? object.spec_version : '2.1'

/** True when `incoming` is an older version than the one stored (same versions are not older). */
export const isOlderVersion = (incoming: Record<string, unknown>, storedVersion: string): boolean =>
  compareVersions(versionOf(incoming), storedVersion) < 0

export class VersionRecorder {
  private readonly rows: RowTuple[] = []

  constructor(
    private readonly versions: StixVersions,
    private readonly workspaceId: string,
  ) {}

  private row(id: string, version: string) {
    return this.versions.workspace(this.workspaceId)?.row(id, version)
  }

  private tuple(object: Record<string, unknown>, raw: string | null, added: number): RowTuple {
    const id = String(object.id)
    const type = String(object.type)
    const src = type === 'relationship' || type === 'sighting' ? endpoints(object).source : null
    return [id, type, versionOf(object), specOf(object), typeof src === 'string' ? src : null, raw, added]
  }

  /**
   * The record is the graph's version of its object after this import. A version seen for the first time,
   * or re-created after a delete, is stamped now; `replacedRaw` is the text it replaced, kept when it was
   * another version.
   */
  current(record: ParsedRecord, status: OutcomeStatus, replacedRaw: string | undefined): void {
    const version = versionOf(record.object)
    const row = status === 'created' ? undefined : this.row(record.id, version)
    if (row === undefined || row.raw !== null)
      this.rows.push(this.tuple(record.object, null, this.versions.stamp()))
    if (replacedRaw === undefined) return
    let replaced: Record<string, unknown>
    try {
      replaced = JSON.parse(replacedRaw) as Record<string, unknown>
    } catch {
      return // not a STIX object's text (written by other means): nothing to keep as a version
    }
    const before = versionOf(replaced)
    if (compareVersions(before, version) === 0) return
    const kept = this.row(record.id, before)
    this.rows.push(this.tuple(replaced, replacedRaw, kept?.added ?? this.versions.stamp()))
  }

  /** An older version than the stored one: kept as a version (with its text), never made current. */
  older(record: ParsedRecord): void {
    if (this.row(record.id, versionOf(record.object)) !== undefined) return
    this.rows.push(this.tuple(record.object, record.raw, this.versions.stamp()))
  }

  entry(): VersionsEntry | null {
    return this.rows.length === 0 ? null : { w: this.workspaceId, rows: this.rows }
  }
}
