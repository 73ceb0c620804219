/** Validation issues (FACTS §5): `node_id` is the object's id, or `object[<i>]` when it has none. */
import { ownValue } from '../own-key.js'
export interface StixIssue {
  code: string
  message: string
  field: string | null
  severity: 'error' | 'warning'
  node_id: string | null
}

export const issue = (
  code: string,
  message: string,
  nodeId: string | null,
  field: string | null,
  severity: 'error' | 'warning' = 'error',
): StixIssue => ({ code, message, field, severity, node_id: nodeId })

/** The FACTS codes for a required property missing from a given type; others are STIX_PROPERTY_REQUIRED. */
const REQUIRED_CODES: Record<string, string> = {
  '*.type': 'STIX_TYPE_REQUIRED',
  '*.id': 'STIX_ID_REQUIRED',
  'identity.name': 'STIX_IDENTITY_NAME_REQUIRED',
  'indicator.pattern': 'STIX_INDICATOR_PATTERN_REQUIRED',
  'indicator.pattern_type': 'STIX_INDICATOR_PATTERN_TYPE_REQUIRED',
  'indicator.valid_from': 'STIX_INDICATOR_VALID_FROM_REQUIRED',
  'malware.is_family': 'STIX_MALWARE_IS_FAMILY_REQUIRED',
  'relationship.relationship_type': 'STIX_REL_TYPE_REQUIRED',
  'relationship.source_ref': 'STIX_REL_SOURCE_REQUIRED',
  'relationship.target_ref': 'STIX_REL_TARGET_REQUIRED',
}

export const requiredCode = (type: string, field: string): string =>
  ownValue(REQUIRED_CODES, `${type}.${field}`) ??
  ownValue(REQUIRED_CODES, `*.${field}`) ??
  'STIX_PROPERTY_REQUIRED'

export const hasError = (issues: readonly StixIssue[]): boolean => issues.some((i) => i.severity === 'error')
