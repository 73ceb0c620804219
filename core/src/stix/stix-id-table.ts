import { grown } from '../graph/id-list.js'

/** `--` and the 36 characters of a uuid that end a canonical id. */
const UUID_TAIL = 38
/** Positions of the dashes inside a uuid. */
const UUID_DASHES = [8, 13, 18, 23]

/**
 * Whether `id` is `type--uuid` with a lowercase RFC 4122 layout (the form STIX 2.1 requires and every
 * producer writes; the type is `[a-z0-9][a-z0-9-]*`), leaving the uuid's 128 bits in `words`. Read by
 * character code: a regex and `parseInt` of its groups were a tenth of loading a 2M-object checkpoint.
 */
function uuidInto(id: string, words: Uint32Array): boolean {
  const n = id.length
  const u = n - 36
  if (n < UUID_TAIL + 1 || id.charCodeAt(u - 1) !== 45 || id.charCodeAt(u - 2) !== 45) return false
  for (let i = 0; i < u - 2; i++) {
    const c = id.charCodeAt(i)
    const ok = (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c === 45 && i > 0)
    if (!ok) return false
  }
  let word = 0
  let nibbles = 0
  for (let i = 0; i < 36; i++) {
    const c = id.charCodeAt(u + i)
    if (UUID_DASHES.includes(i)) {
      if (c !== 45) return false
      continue
    }
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1
    if (v < 0) return false
    word = ((word << 4) | v) >>> 0
    if (++nibbles % 8 === 0) {
      words[nibbles / 8 - 1] = word
      word = 0
    }
  }
  return true
}

/** Type code of a key held as text (an id not of the canonical form). */
const TEXT = 0xffff
const EMPTY = -1

/**
 * STIX ids as dense keys 0, 1, 2…, held as a type code and the uuid's 128 bits in typed arrays instead of a
 * string each (~70 bytes of heap) plus a Map entry: about 30 bytes a key, outside the collected heap. The
 * text is rebuilt on demand. An id that is not `type--uuid` in lowercase keeps its text (rare: validation
 * refuses most). Open addressing over the keys, at most half full.
 */
export class StixIdTable {
  private readonly typeNames: string[] = []
  private readonly typeCodes = new Map<string, number>()
  private types = new Uint16Array(0)
  /** Four 32-bit words of uuid per key. */
  private words = new Uint32Array(0)
  private readonly texts = new Map<number, string>()
  private readonly textKeys = new Map<string, number>()
  private slots = new Int32Array(1024).fill(EMPTY)
  private count = 0
  /** Parsed form of the last id looked at: `key` parses once what `find` just parsed. */
  private readonly probe = new Uint32Array(4)
  private probed: string | null = null
  private probedType: string | undefined

  get size(): number {
    return this.count
  }

  /** The key of `id`, or -1. */
  find(id: string): number {
    const type = this.parse(id)
    if (type === undefined) return this.textKeys.get(id) ?? EMPTY
    const code = this.typeCodes.get(type)
    if (code === undefined) return EMPTY
    return this.slots[this.slotOf(code)] as number
  }

  /** The key of `id`, added when new. */
  key(id: string): number {
    const type = this.parse(id)
    if (type === undefined) {
      let key = this.textKeys.get(id)
      if (key === undefined) {
        key = this.add(TEXT)
        this.texts.set(key, id)
        this.textKeys.set(id, key)
      }
      return key
    }
    const code = this.typeCode(type)
    const slot = this.slotOf(code)
    const found = this.slots[slot] as number
    if (found !== EMPTY) return found
    const key = this.add(code)
    this.words.set(this.probe, key * 4)
    this.slots[slot] = key
    if (this.count * 2 > this.slots.length) this.rehash()
    return key
  }

  /** The id text of `key`. */
  id(key: number): string {
    const code = this.types[key] as number
    if (code === TEXT) return this.texts.get(key) as string
    const at = key * 4
    const hex = (w: number) => (this.words[at + w] as number).toString(16).padStart(8, '0')
    const a = hex(0)
    const b = hex(1)
    const c = hex(2)
    const d = hex(3)
    return `${this.typeNames[code]}--${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${d}`
  }

  private add(code: number): number {
    const key = this.count++
    this.types = key < this.types.length ? this.types : grown(this.types, key + 1)
    if (key * 4 >= this.words.length) {
      const words = new Uint32Array(Math.max(64, this.words.length * 2))
      words.set(this.words)
      this.words = words
    }
    this.types[key] = code
    return key
  }

  private typeCode(type: string): number {
    let code = this.typeCodes.get(type)
    if (code === undefined) {
      code = this.typeNames.length
      if (code >= TEXT) throw new Error('more than 65,535 distinct STIX types')
      this.typeNames.push(type)
      this.typeCodes.set(type, code)
    }
    return code
  }

  /** The type of a canonical id, its uuid left in `probe`; undefined for any other text. */
  private parse(id: string): string | undefined {
    // An import looks an id up, then adds it: the second parse is the first's.
    if (id === this.probed) return this.probedType
    this.probed = id
    this.probedType = uuidInto(id, this.probe) ? id.slice(0, id.length - UUID_TAIL) : undefined
    return this.probedType
  }

  /** The slot holding the probe's key of type `code`, or the empty slot where it would go. */
  private slotOf(code: number): number {
    const p = this.probe
    const mask = this.slots.length - 1
    let h = Math.imul((p[0] as number) ^ Math.imul(p[3] as number, 0x9e3779b1), 0x85ebca6b) ^ code
    for (;;) {
      h &= mask
      const key = this.slots[h] as number
      if (key === EMPTY) return h
      const at = key * 4
      if (
        this.types[key] === code &&
        this.words[at] === p[0] &&
        this.words[at + 1] === p[1] &&
        this.words[at + 2] === p[2] &&
        this.words[at + 3] === p[3]
      )
        return h
      h++
    }
  }

  private rehash(): void {
    this.probed = null
    this.slots = new Int32Array(this.slots.length * 2).fill(EMPTY)
    for (let key = 0; key < this.count; key++) {
      const code = this.types[key] as number
      if (code === TEXT) continue
      this.probe.set(this.words.subarray(key * 4, key * 4 + 4))
      this.slots[this.slotOf(code)] = key
    }
  }
}
