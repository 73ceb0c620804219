/**
 * The access decision a record's access metadata implies for a subject, as the parity check compares it on
 * both sides (spec, rollback step 4: "access decisions"). A subject may read a record when it holds every
 * marking of the record, belongs to one of the record's granted organizations when there are any, and is a
 * listed member (by subject or organization id) when the record restricts its members. The rule is the
 * same function on both sides, so any difference comes from differing access metadata.
 */
import type { RawRecord } from './records.js'

export interface AccessSubject {
  subject_id: string
  organization_ids: string[]
  marking_ids: string[]
}

const MARKING_KEYS = ['object_marking_refs', 'objectMarking']
const ORGANIZATION_KEYS = ['granted_refs', 'objectOrganization', 'x_opencti_granted_refs']
const MEMBER_KEYS = ['authorized_members', 'restricted_members']

/** Ids named by a metadata value: strings, or objects with an `id` / `standard_id`. */
function idsOf(record: RawRecord, keys: string[]): string[] {
  const out: string[] = []
  for (const key of keys) {
    const value = record[key]
    if (!Array.isArray(value)) continue
    for (const item of value) {
      if (typeof item === 'string') out.push(item)
      else if (item !== null && typeof item === 'object') {
        const id =
          (item as { id?: unknown; standard_id?: unknown }).id ??
          (item as { standard_id?: unknown }).standard_id
        if (typeof id === 'string') out.push(id)
      }
    }
  }
  return out
}

export function accessAllowed(subject: AccessSubject, record: RawRecord): boolean {
  const markings = new Set(subject.marking_ids)
  if (!idsOf(record, MARKING_KEYS).every((m) => markings.has(m))) return false
  const own = new Set([subject.subject_id, ...subject.organization_ids])
  const granted = idsOf(record, ORGANIZATION_KEYS)
  if (granted.length > 0 && !granted.some((org) => own.has(org))) return false
  const members = idsOf(record, MEMBER_KEYS)
  if (members.length > 0 && !members.some((member) => own.has(member))) return false
  return true
}
