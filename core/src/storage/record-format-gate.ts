import { RECORD_FORMAT, TEMPORAL_RECORD_FORMAT } from '../version.js'
import { type Manifest, writeManifest } from './manifest.js'

/**
 * A temporal value or a point in a log line: a tagged object, which JSON can only hold unescaped outside any
 * string (in a string property, such as a STIX payload, the same text has its quotes escaped), so the test is exact.
 */
const TEMPORAL_TAG = /\{"\$(?:(?:date|localtime|time|localdatetime|datetime|duration)":"|point":\{)/

/**
 * Whether a log or checkpoint line holds a value only JsonLinesV2 carries. Every tag starts with `{"$`, a text
 * JSON writes only for an object key starting with `$`: a substring search rules out nearly every line at a
 * fraction of the pattern's cost (it ran for each durable write).
 */
export const holdsTemporalValue = (line: string): boolean => line.includes('{"$') && TEMPORAL_TAG.test(line)

/** Where the storage keeps its manifest: the one object every manifest write starts from. */
export interface ManifestHolder {
  manifest: Manifest
}

/**
 * Raises a directory's record format to JsonLinesV2 just before the first log line holding a temporal value or a
 * point is queued, so a build that reads only JsonLinesV1 refuses the directory (exit 5) instead of misreading it, and a
 * directory that never stores one stays on the spec's JsonLinesV1. The manifest is written synchronously here,
 * before the line can reach the disk.
 */
export class RecordFormatGate {
  constructor(
    private readonly dir: string,
    private readonly holder: ManifestHolder,
  ) {}

  readonly beforeLine = (line: string): void => {
    // Only V1 is raised: V2 has temporal values already, and V3 (payloads) carries everything V2 does.
    if (this.holder.manifest.record_format !== RECORD_FORMAT || !holdsTemporalValue(line)) return
    this.holder.manifest = { ...this.holder.manifest, record_format: TEMPORAL_RECORD_FORMAT }
    writeManifest(this.dir, this.holder.manifest)
  }
}
