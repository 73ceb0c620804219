import { float, int, list, map, node, point, rel, str, temporal } from './form.js'

/**
 * Parses one cell of the manual's result tables to the canonical text of `form.ts`. The notation: quoted
 * strings, integers and floats, `null`/`true`/`false`/`NaN`/`Infinity`, lists, maps (keys bare or quoted),
 * nodes `(:Label {…})`, relationships `[:TYPE {…}]`, paths `(…)-[…]->(…)`, `point({srid:…, x:…, y:…})` and
 * temporal values written bare (`2022-06-14`, `12:00:00Z`, `P1Y2M`, `…[Europe/London]`).
 */
export function parseCell(text: string): string {
  const parser = new CellParser(text)
  const value = parser.value()
  parser.end()
  return value
}

const TEMPORAL = /^[-+]?(?:P-?[\dT.][\dYMWDTHS.,-]*|\d{2,}[-:]\d[\dT:.+\-Z]*(?:\[[\w/+-]+\])?)/
const NUMBER = /^-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/
const SRID: Record<string, number> = {
  cartesian: 7203,
  'cartesian-3d': 9157,
  'wgs-84': 4326,
  'wgs-84-3d': 4979,
}

class CellParser {
  private pos = 0

  constructor(private readonly text: string) {}

  end(): void {
    this.ws()
    if (this.pos < this.text.length) this.fail('end of cell')
  }

  private fail(what: string): never {
    throw new Error(`expected ${what} at ${this.pos} in ${this.text}`)
  }

  private ws(): void {
    while (/\s/.test(this.text[this.pos] ?? '')) this.pos++
  }

  private rest(): string {
    this.ws()
    return this.text.slice(this.pos)
  }

  private tryEat(s: string): boolean {
    if (!this.rest().startsWith(s)) return false
    this.pos += s.length
    return true
  }

  private eat(s: string): void {
    if (!this.tryEat(s)) this.fail(`'${s}'`)
  }

  private key(): string {
    const rest = this.rest()
    if (rest.startsWith('"') || rest.startsWith("'")) return this.string()
    if (rest.startsWith('`')) {
      const close = this.text.indexOf('`', this.pos + 1)
      const name = this.text.slice(this.pos + 1, close)
      this.pos = close + 1
      return name
    }
    const m = /^[\p{L}\p{N}_$]+/u.exec(rest)
    if (!m) this.fail('a name')
    this.pos += m[0].length
    return m[0]
  }

  private string(): string {
    const quote = this.text[this.pos]
    this.pos++
    let out = ''
    while (this.pos < this.text.length && this.text[this.pos] !== quote) {
      if (this.text[this.pos] === '\\') {
        const next = this.text[this.pos + 1] ?? ''
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next
        this.pos += 2
      } else out += this.text[this.pos++]
    }
    if (this.pos >= this.text.length) this.fail('a closing quote')
    this.pos++
    return out
  }

  private entries(): [string, string][] {
    this.eat('{')
    const out: [string, string][] = []
    if (!this.tryEat('}')) {
      do {
        const k = this.key()
        this.eat(':')
        out.push([k, this.value()])
      } while (this.tryEat(','))
      this.eat('}')
    }
    return out
  }

  private nodeText(): string {
    this.eat('(')
    const labels: string[] = []
    while (this.tryEat(':')) labels.push(this.key())
    const props = this.rest().startsWith('{') ? this.entries() : []
    this.eat(')')
    return node(labels, props)
  }

  private relText(): string {
    this.eat('[')
    this.eat(':')
    const type = this.key()
    const props = this.rest().startsWith('{') ? this.entries() : []
    this.eat(']')
    return rel(type, props)
  }

  /** A node, or a path starting with it (`(a)-[r]->(b)<-[s]-(c)`). */
  private nodeOrPath(): string {
    let out = this.nodeText()
    let steps = 0
    for (;;) {
      if (this.tryEat('<-')) {
        const r = this.relText()
        this.eat('-')
        out += `<-${r}-`
      } else if (this.rest().startsWith('-[')) {
        this.eat('-')
        const r = this.relText()
        this.eat('->')
        out += `-${r}->`
      } else break
      out += this.nodeText()
      steps++
    }
    return steps === 0 ? out : `<${out}>`
  }

  private pointText(): string {
    this.eat('point(')
    const fields = new Map(this.entries())
    this.eat(')')
    const num = (k: string): number | undefined => {
      const v = fields.get(k)
      return v === undefined ? undefined : Number(v.replace(/^f:/, ''))
    }
    const crs = fields.get('crs')
    const srid = num('srid') ?? (crs === undefined ? undefined : SRID[JSON.parse(crs).toLowerCase()])
    const x = num('x') ?? num('longitude')
    const y = num('y') ?? num('latitude')
    const z = num('z') ?? num('height')
    if (srid === undefined || x === undefined || y === undefined) this.fail('a point with srid, x and y')
    return point(srid, z === undefined ? [x, y] : [x, y, z])
  }

  value(): string {
    const rest = this.rest()
    for (const [word, out] of [
      ['null', 'null'],
      ['NULL', 'null'],
      ['<null>', 'null'],
      ['true', 'true'],
      ['false', 'false'],
      ['NaN', float(Number.NaN)],
      ['Infinity', float(Number.POSITIVE_INFINITY)],
      ['-Infinity', float(Number.NEGATIVE_INFINITY)],
    ] as const) {
      if (rest.startsWith(word) && !/[\w]/.test(rest[word.length] ?? '')) {
        this.pos += word.length
        return out
      }
    }
    if (rest.startsWith('"') || rest.startsWith("'")) return str(this.string())
    if (rest.startsWith('point(')) return this.pointText()
    if (rest.startsWith('(')) return this.nodeOrPath()
    if (rest.startsWith('<(')) {
      this.eat('<')
      const path = this.nodeOrPath()
      this.eat('>')
      return path.startsWith('<') ? path : `<${path}>`
    }
    if (rest.startsWith('[')) {
      if (/^\[\s*:/.test(rest)) return this.relText()
      this.eat('[')
      const items: string[] = []
      if (!this.tryEat(']')) {
        do items.push(this.value())
        while (this.tryEat(','))
        this.eat(']')
      }
      return list(items)
    }
    if (rest.startsWith('{')) return map(this.entries())
    // Neo4j's older print of a node, `Node[2]{name:"Andy"}`: its id is Neo4j's, its properties compare.
    const legacy = /^Node\[\d+\](?=\{)/.exec(rest)
    if (legacy) {
      this.pos += legacy[0].length
      return map(this.entries())
    }
    const t = TEMPORAL.exec(rest)
    if (t) {
      this.pos += t[0].length
      return temporal(t[0])
    }
    const n = NUMBER.exec(rest)
    if (!n) this.fail('a value')
    this.pos += n[0].length
    return /[.eE]/.test(n[0]) ? float(Number(n[0])) : int(BigInt(n[0]))
  }
}
