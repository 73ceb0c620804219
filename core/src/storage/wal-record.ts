import { hash } from 'node:crypto'
import { memoize } from '../memo.js'

/** One committed transaction in the write-ahead log: a single JSON line, self-checking. */
export interface WalRecord {
  seq: number
  tx: string
  at: number
  kind: string
  body: unknown
}

/**
 * A body its writer already turned into JSON text (a writer that knows its shape writes it faster than
 * JSON.stringify walks it). The record holds the same text either way; readers see no difference.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A log line's few distinct strings (its kinds) quoted once each, not once per record. */
const quoted = memoize((text) => JSON.stringify(text), 256)

const SUFFIX_LENGTH = ',"sha256":"'.length + 64 + '"}'.length
// One-shot digest: no Hash object per record (measurable at tens of thousands of commits per second).
const sha256 = (text: string) => hash('sha256', text, 'hex')

/**
 * Encodes a record as one line ending in `,"sha256":"<hex>"}\n`, the digest covering everything before it,
 * so a torn or altered line is detected without a second file.
 */
export function encodeWalRecord(record: WalRecord): string {
  return sealWalRecord(walRecordPrefix(record))
}

/**
 * A record's line up to its checksum: the object's JSON without its closing brace, written out directly (the
 * same text JSON.stringify gives for these fields, without an object to build and a copy to slice per record).
 */
export function walRecordPrefix(record: WalRecord): string {
  const at = Number.isFinite(record.at) ? String(record.at) : 'null'
  const body =
    record.body instanceof JsonText ? record.body.text : (JSON.stringify(record.body) as string | undefined) // undefined: the key is left out
  return `{"seq":${record.seq},"tx":${JSON.stringify(record.tx)},"at":${at},"kind":${quoted(record.kind)}${body === undefined ? '' : `,"body":${body}`}`
}

/** The line of a record from its `walRecordPrefix`: the prefix's digest appended. */
export function sealWalRecord(prefix: string): string {
  return `${prefix},"sha256":"${sha256(prefix)}"}\n`
}

export type DecodeResult = { ok: true; record: WalRecord } | { ok: false; reason: 'malformed' | 'checksum' }

export function decodeWalRecord(line: string): DecodeResult {
  if (line.length <= SUFFIX_LENGTH || !line.endsWith('"}')) return { ok: false, reason: 'malformed' }
  const cut = line.length - SUFFIX_LENGTH
  if (line.slice(cut, cut + 11) !== ',"sha256":"') return { ok: false, reason: 'malformed' }
  const prefix = line.slice(0, cut)
  const digest = line.slice(cut + 11, cut + 75)
  if (sha256(prefix) !== digest) return { ok: false, reason: 'checksum' }
  try {
    const parsed = JSON.parse(`${prefix}}`) as WalRecord
    if (!Number.isSafeInteger(parsed.seq) || parsed.seq <= 0 || typeof parsed.kind !== 'string') {
      return { ok: false, reason: 'malformed' }
    }
    return { ok: true, record: parsed }
  } catch {
    return { ok: false, reason: 'malformed' }
  }
}
