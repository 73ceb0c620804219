/**
 * Constraints of STIX 2.1 that a per-type property table cannot state: co-occurrence ("at least one of"),
 * ordering of timestamps, property-name and value rules of §3.1 and §3.8. Each returns issues for one object.
 */
import { ownValue } from '../own-key.js'
import type { StixIssue } from './issues.js'
import { issue } from './issues.js'

type Obj = Record<string, unknown>
type Rule = (o: Obj, at: string) => StixIssue[]

const PROPERTY_NAME = /^([a-z][a-z0-9_]{2,249}|id)$/
const RESERVED = ['severity', 'action', 'username', 'phone_numbers']
const has = (o: Obj, key: string) => o[key] !== undefined
const time = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : Number.NaN)

/** `later` must not precede `earlier` (strictly after when `strict`). */
function order(o: Obj, at: string, earlier: string, later: string, strict = false): StixIssue[] {
  const a = time(o[earlier])
  const b = time(o[later])
  if (Number.isNaN(a) || Number.isNaN(b) || (strict ? b > a : b >= a)) return []
  return [
    issue(
      'STIX_TIMESTAMP_ORDER',
      `${later} must be ${strict ? 'after' : 'at or after'} ${earlier}`,
      at,
      later,
    ),
  ]
}

function atLeastOne(o: Obj, at: string, keys: string[]): StixIssue[] {
  return keys.some((k) => has(o, k))
    ? []
    : [
        issue(
          'STIX_PROPERTY_REQUIRED',
          `${o.type} needs at least one of ${keys.join(', ')}`,
          at,
          keys[0] ?? null,
        ),
      ]
}

function exactlyOne(o: Obj, at: string, keys: [string, string]): StixIssue[] {
  const n = keys.filter((k) => has(o, k)).length
  return n === 1
    ? []
    : [issue('STIX_PROPERTY_CONFLICT', `${o.type} needs exactly one of ${keys.join(', ')}`, at, keys[0])]
}

const seen: Rule = (o, at) => order(o, at, 'first_seen', 'last_seen')

const BY_TYPE: Record<string, Rule[]> = {
  campaign: [seen],
  'intrusion-set': [seen],
  'threat-actor': [seen],
  infrastructure: [seen],
  sighting: [seen],
  malware: [
    seen,
    (o, at) =>
      o.is_family === true && !has(o, 'name')
        ? [issue('STIX_MALWARE_NAME_REQUIRED', 'a malware family must have a name', at, 'name')]
        : [],
  ],
  indicator: [(o, at) => order(o, at, 'valid_from', 'valid_until', true)],
  relationship: [(o, at) => order(o, at, 'start_time', 'stop_time', true)],
  'observed-data': [
    (o, at) => exactlyOne(o, at, ['objects', 'object_refs']),
    (o, at) => order(o, at, 'first_observed', 'last_observed'),
  ],
  'malware-analysis': [(o, at) => atLeastOne(o, at, ['result', 'analysis_sco_refs'])],
  location: [
    (o, at) => atLeastOne(o, at, ['region', 'country', 'latitude']),
    (o, at) =>
      has(o, 'latitude') !== has(o, 'longitude') || (has(o, 'precision') && !has(o, 'latitude'))
        ? [
            issue(
              'STIX_PROPERTY_CONFLICT',
              'latitude and longitude go together (precision needs both)',
              at,
              'latitude',
            ),
          ]
        : [],
  ],
  'marking-definition': [
    (o, at) =>
      has(o, 'definition_type') !== has(o, 'definition')
        ? [issue('STIX_PROPERTY_CONFLICT', 'definition_type and definition go together', at, 'definition')]
        : [],
  ],
  artifact: [
    (o, at) =>
      has(o, 'payload_bin') && has(o, 'url')
        ? [issue('STIX_PROPERTY_CONFLICT', 'payload_bin and url are exclusive', at, 'url')]
        : has(o, 'url') && !has(o, 'hashes')
          ? [issue('STIX_PROPERTY_REQUIRED', 'an artifact with url needs hashes', at, 'hashes')]
          : [],
  ],
  file: [(o, at) => atLeastOne(o, at, ['hashes', 'name'])],
  'network-traffic': [(o, at) => atLeastOne(o, at, ['src_ref', 'dst_ref'])],
}

const EXTERNAL_ID: Record<string, RegExp> = { cve: /^CVE-\d{4}-(0\d{3}|[1-9]\d{3,})$/, capec: /^CAPEC-\d+$/ }

function externalReferences(o: Obj, at: string): StixIssue[] {
  const refs = o.external_references
  if (!Array.isArray(refs)) return []
  const out: StixIssue[] = []
  refs.forEach((ref: Obj, i) => {
    if (ref === null || typeof ref !== 'object') return
    const field = `external_references[${i}]`
    if (!has(ref, 'description') && !has(ref, 'url') && !has(ref, 'external_id'))
      out.push(issue('STIX_EXTERNAL_REFERENCE_INVALID', 'needs description, url or external_id', at, field))
    const pattern = typeof ref.source_name === 'string' ? ownValue(EXTERNAL_ID, ref.source_name) : undefined
    if (pattern !== undefined && !(typeof ref.external_id === 'string' && pattern.test(ref.external_id)))
      out.push(
        issue('STIX_EXTERNAL_REFERENCE_INVALID', `${ref.source_name} external_id is malformed`, at, field),
      )
  })
  return out
}

/** §3.1: names 3..250 of [a-z0-9_]; §3.8-ish: no null and no empty list as a property value. */
function properties(o: Obj, at: string, domain: boolean): StixIssue[] {
  const out: StixIssue[] = []
  for (const [key, value] of Object.entries(o)) {
    if (!PROPERTY_NAME.test(key))
      out.push(
        issue('STIX_PROPERTY_NAME_INVALID', `property name ${JSON.stringify(key)} is not allowed`, at, key),
      )
    else if (value === null || (Array.isArray(value) && value.length === 0))
      out.push(issue('STIX_PROPERTY_VALUE_INVALID', `${key} must not be null or an empty list`, at, key))
    if (domain && RESERVED.includes(key))
      out.push(issue('STIX_PROPERTY_NAME_INVALID', `${key} is reserved and not allowed here`, at, key))
  }
  return out
}

export function ruleIssues(o: Obj, type: string, at: string, domain: boolean): StixIssue[] {
  const out = [...properties(o, at, domain), ...externalReferences(o, at)]
  if (domain) out.push(...order(o, at, 'created', 'modified'))
  for (const rule of ownValue(BY_TYPE, type) ?? []) out.push(...rule(o, at))
  return out
}
