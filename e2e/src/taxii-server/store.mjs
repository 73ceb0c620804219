// The server's data: API roots and collections from a medallion-format file, plus an optional `attack`
// API root whose `attack-ics` collection holds a STIX bundle's objects with synthetic `date_added` values.
import { readFileSync } from 'node:fs'
import { formatTimestamp, parseTimestamp } from './timestamps.mjs'

/**
 * One stored version of an object, with its TAXII manifest data.
 * @typedef {{ object: Record<string, unknown>, id: string, type: string, version: string,
 *   dateAdded: bigint, dateAddedText: string, mediaType: string }} Entry
 * @typedef {{ id: string, title: string, description?: string, can_read: boolean, can_write: boolean,
 *   media_types: string[], entries: Entry[] }} Collection
 * @typedef {{ information: Record<string, unknown>, collections: Collection[], status: Record<string, unknown>[] }} ApiRoot
 * @typedef {{ discovery: Record<string, unknown>, roots: Map<string, ApiRoot> }} Store
 */

export const STIX_21 = 'application/stix+json;version=2.1'
export const ATTACK_ROOT = 'attack'
export const ATTACK_COLLECTION = 'attack-ics'
const ATTACK_FIRST_ADDED = '2024-01-01T00:00:00.000000Z'

/** @param {Record<string, unknown>} object */
const versionOf = (object) => String(object.modified ?? object.created ?? '')

/** @param {Record<string, unknown>} object */
const isRelationship = (object) => object.type === 'relationship' || object.type === 'sighting'

/**
 * @param {{ medallionFile?: string | undefined, attackFile?: string | undefined }} files
 * @returns {Store}
 */
export function loadStore({ medallionFile, attackFile }) {
  /** @type {Map<string, ApiRoot>} */
  const roots = new Map()
  /** @type {Record<string, unknown>} */
  let discovery = { title: 'TAXII 2.1 test server', description: 'Test data for the TAXII connector.' }
  if (medallionFile !== undefined) {
    const data = JSON.parse(readFileSync(medallionFile, 'utf8'))
    const { '/discovery': medallionDiscovery, ...apiRoots } = data
    discovery = { ...medallionDiscovery }
    for (const [name, root] of Object.entries(apiRoots)) {
      roots.set(name, {
        information: root.information,
        status: root.status ?? [],
        collections: (root.collections ?? []).map(medallionCollection),
      })
    }
  }
  if (attackFile !== undefined) {
    const bundle = JSON.parse(readFileSync(attackFile, 'utf8'))
    roots.set(ATTACK_ROOT, {
      information: {
        title: 'MITRE ATT&CK (test copy)',
        description: 'ATT&CK objects served in pages for the connector tests.',
        versions: ['application/taxii+json;version=2.1'],
        max_content_length: 104857600,
      },
      status: [],
      collections: [attackCollection(bundle.objects)],
    })
  }
  return { discovery, roots }
}

/**
 * Medallion keeps objects and their manifest side by side; `date_added` comes from the manifest row of the
 * same id and version (falling back to the version itself).
 * @param {Record<string, any>} raw
 * @returns {Collection}
 */
function medallionCollection(raw) {
  const { objects = [], manifest = [], ...info } = raw
  /** @type {Map<string, Record<string, string>>} */
  const rows = new Map(manifest.map((/** @type {Record<string, string>} */ m) => [`${m.id}|${m.version}`, m]))
  /** @type {Entry[]} */
  const entries = objects.map((/** @type {Record<string, unknown>} */ object) => {
    const version = versionOf(object)
    const row = rows.get(`${object.id}|${version}`)
    const dateAdded = parseTimestamp(row?.date_added ?? version) ?? 0n
    return entry(object, version, dateAdded, row?.media_type ?? STIX_21)
  })
  return { ...info, entries }
}

/**
 * Deterministic, strictly increasing `date_added`, one second apart, objects before the relationships that
 * join them (as a live feed would add them).
 * @param {Record<string, unknown>[]} objects
 * @returns {Collection}
 */
function attackCollection(objects) {
  const ordered = [...objects.filter((o) => !isRelationship(o)), ...objects.filter(isRelationship)]
  const first = /** @type {bigint} */ (parseTimestamp(ATTACK_FIRST_ADDED))
  return {
    id: ATTACK_COLLECTION,
    title: 'ATT&CK for ICS',
    description: 'The ATT&CK ICS bundle, one object added per second from 2024-01-01.',
    can_read: true,
    can_write: false,
    media_types: [STIX_21],
    entries: ordered.map((object, i) =>
      entry(object, versionOf(object), first + BigInt(i) * 1_000_000n, STIX_21),
    ),
  }
}

/**
 * @param {Record<string, unknown>} object
 * @param {string} version
 * @param {bigint} dateAdded
 * @param {string} mediaType
 * @returns {Entry}
 */
function entry(object, version, dateAdded, mediaType) {
  return {
    object,
    id: String(object.id),
    type: String(object.type),
    version,
    dateAdded,
    dateAddedText: formatTimestamp(dateAdded),
    mediaType,
  }
}

/**
 * The collection resource as TAXII shows it (without the stored entries).
 * @param {Collection} collection
 */
export function collectionResource({ entries: _entries, ...resource }) {
  return resource
}
