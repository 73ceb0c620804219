import { randomUUID } from 'node:crypto'
import { isRelationship, latestVersions, type StixObject } from './stix.js'

export interface StixBundle {
  type: 'bundle'
  id: string
  objects: StixObject[]
}

// Room for `{"bundle":{"type":"bundle","id":"bundle--<uuid>","objects":[...]},"workspace_id":"..."}`.
const ENVELOPE_BYTES = 512

/**
 * One cycle's objects as import bundles: one version per id, objects before the relationships that join them
 * (so a later bundle's edges find their endpoints already stored), split wherever the serialized request would
 * pass `maxBytes`. An object larger than the bound travels alone and the server decides.
 */
export function planBundles(
  objects: readonly StixObject[],
  maxBytes: number,
  workspaceIdBytes = 0,
): StixBundle[] {
  const unique = latestVersions(objects)
  const ordered = [...unique.filter((o) => !isRelationship(o)), ...unique.filter(isRelationship)]
  const bundles: StixBundle[] = []
  let current: StixObject[] = []
  let size = ENVELOPE_BYTES + workspaceIdBytes
  for (const object of ordered) {
    const bytes = Buffer.byteLength(JSON.stringify(object)) + 1
    if (current.length > 0 && size + bytes > maxBytes) {
      bundles.push(bundle(current))
      current = []
      size = ENVELOPE_BYTES + workspaceIdBytes
    }
    current.push(object)
    size += bytes
  }
  if (current.length > 0) bundles.push(bundle(current))
  return bundles
}

const bundle = (objects: StixObject[]): StixBundle => ({
  type: 'bundle',
  id: `bundle--${randomUUID()}`,
  objects,
})

/** Two halves of a bundle, in order: the fallback when the server finds a request too large (413). */
export function halveBundle({ objects }: StixBundle): [StixBundle, StixBundle] {
  const middle = Math.ceil(objects.length / 2)
  return [bundle(objects.slice(0, middle)), bundle(objects.slice(middle))]
}
