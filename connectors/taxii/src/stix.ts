/** A STIX object as the connector handles it: opaque JSON apart from the few fields it reads. */
export type StixObject = Record<string, unknown>

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

export const stixId = (object: StixObject): string | undefined => str(object.id)

/** Same test the import uses: these become edges, so they must travel after the objects they join. */
export const isRelationship = (object: StixObject): boolean =>
  object.type === 'relationship' ||
  object.type === 'sighting' ||
  object.base_type === 'RELATION' ||
  (object.source_ref !== undefined && object.target_ref !== undefined)

const versionOf = (object: StixObject): number =>
  Date.parse(str(object.modified) ?? str(object.created) ?? '')

/**
 * One version per id, the newest by `modified` (ties and unreadable dates go to the later arrival): a bundle
 * holding two payloads for one id would be refused as conflicting. Objects without an id pass through untouched
 * for the server to judge. Order is first arrival.
 */
export function latestVersions(objects: readonly StixObject[]): StixObject[] {
  const byId = new Map<string, StixObject>()
  const out: (StixObject | string)[] = []
  for (const object of objects) {
    const id = stixId(object)
    if (id === undefined) {
      out.push(object)
      continue
    }
    const seen = byId.get(id)
    if (seen === undefined) out.push(id)
    if (seen === undefined || !(versionOf(seen) > versionOf(object))) byId.set(id, object)
  }
  return out.map((entry) => (typeof entry === 'string' ? byId.get(entry)! : entry))
}
