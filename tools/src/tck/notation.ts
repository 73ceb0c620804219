import type { GraphReader } from '@service/core'
import { formatTemporal, isTemporal, NodeValue, PathValue, RelValue, type Value } from '@service/core/cypher'

/**
 * Canonical strings for comparing TCK expectations with results: both sides are rendered to the
 * same text, so comparison is string equality. Integers and floats stay distinct (`1` vs `f:1`),
 * map keys and labels are sorted; with `unorderedLists` list items are sorted too.
 */
export interface CanonicalOptions {
  unorderedLists: boolean
}

const sortedMap = (entries: [string, string][]): string =>
  `{${entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}:${v}`)
    .join(',')}}`

const list = (items: string[], options: CanonicalOptions): string =>
  `[${(options.unorderedLists ? items.slice().sort() : items).join(',')}]`

const float = (n: number): string => `f:${String(n)}`
const node = (labels: string[], props: string): string =>
  `(${labels
    .slice()
    .sort()
    .map((l) => `:${l}`)
    .join('')}${props})`
const rel = (type: string, props: string): string => `[:${type}${props}]`

/** Renders a query result value. */
export function canonicalValue(value: Value, graph: GraphReader, options: CanonicalOptions): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'boolean':
      return String(value)
    case 'bigint':
      return value.toString()
    case 'number':
      return float(value)
    case 'string':
      return JSON.stringify(value)
  }
  if (Array.isArray(value))
    return list(
      value.map((v) => canonicalValue(v, graph, options)),
      options,
    )
  if (value instanceof Map)
    return sortedMap([...value].map(([k, v]) => [k, canonicalValue(v, graph, options)]))
  if (value instanceof NodeValue) return renderNode(value.id, graph, options)
  if (value instanceof RelValue) return renderRel(value.id, graph, options)
  if (value instanceof PathValue) {
    let out = `<${renderNode(value.nodes[0] as number, graph, options)}`
    value.rels.forEach((id, i) => {
      const forward = graph.relStart(id) === value.nodes[i]
      out += `${forward ? '-' : '<-'}${renderRel(id, graph, options)}${forward ? '->' : '-'}`
      out += renderNode(value.nodes[i + 1] as number, graph, options)
    })
    return `${out}>`
  }
  // The TCK writes temporal results as their string form ('2015-07-21T21:40:32.142+01:00').
  if (isTemporal(value)) return JSON.stringify(formatTemporal(value))
  return '?'
}

function renderProps(
  props: ReadonlyMap<number, Value> | undefined,
  graph: GraphReader,
  options: CanonicalOptions,
): string {
  if (props === undefined || props.size === 0) return ''
  return sortedMap([...props].map(([k, v]) => [graph.names.name(k), canonicalValue(v, graph, options)]))
}

function renderNode(id: number, graph: GraphReader, options: CanonicalOptions): string {
  const record = graph.node(id)
  if (record === undefined) return '()'
  return node(
    record.labels.map((l) => graph.names.name(l)),
    renderProps(record.props, graph, options),
  )
}

function renderRel(id: number, graph: GraphReader, options: CanonicalOptions): string {
  const type = graph.relType(id)
  if (type < 0) return '[]'
  return rel(graph.names.name(type), renderProps(graph.relProps(id), graph, options))
}

/** Parses the TCK's value notation (cells of result tables and parameter tables) to canonical text. */
export function canonicalExpected(text: string, options: CanonicalOptions): string {
  const parser = new NotationParser(text, options)
  const value = parser.value()
  parser.end()
  return value
}

/** Parses a parameter value into a JS value for the request (maps as objects, lists as arrays). */
export function parseParameter(text: string): unknown {
  const parser = new NotationParser(text, { unorderedLists: false })
  const value = parser.jsValue()
  parser.end()
  return value
}

class NotationParser {
  private pos = 0

  constructor(
    private readonly text: string,
    private readonly options: CanonicalOptions,
  ) {}

  end(): void {
    this.ws()
    if (this.pos < this.text.length)
      throw new Error(`unexpected '${this.text.slice(this.pos)}' in ${this.text}`)
  }

  private ws(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] as string)) this.pos++
  }

  private peek(s: string): boolean {
    this.ws()
    return this.text.startsWith(s, this.pos)
  }

  private eat(s: string): void {
    if (!this.peek(s)) throw new Error(`expected '${s}' at ${this.pos} in ${this.text}`)
    this.pos += s.length
  }

  private name(): string {
    this.ws()
    if (this.text[this.pos] === '`') {
      const close = this.text.indexOf('`', this.pos + 1)
      const name = this.text.slice(this.pos + 1, close)
      this.pos = close + 1
      return name
    }
    const match = /^[\p{L}\p{N}_$]+/u.exec(this.text.slice(this.pos))
    if (!match) throw new Error(`expected a name at ${this.pos} in ${this.text}`)
    this.pos += match[0].length
    return match[0]
  }

  private string(): string {
    this.ws()
    const quote = this.text[this.pos]
    this.pos++
    let out = ''
    while (this.pos < this.text.length && this.text[this.pos] !== quote) {
      if (this.text[this.pos] === '\\') {
        const next = this.text[this.pos + 1] as string
        out += next === 'n' ? '\n' : next === 't' ? '\t' : next
        this.pos += 2
      } else out += this.text[this.pos++]
    }
    this.pos++
    return out
  }

  private number(): { int: bigint } | { float: number } {
    this.ws()
    const match = /^-?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|Inf(inity)?)/.exec(
      this.text.slice(this.pos),
    )
    if (!match) throw new Error(`expected a number at ${this.pos} in ${this.text}`)
    this.pos += match[0].length
    const raw = match[0]
    if (/Inf/.test(raw))
      return { float: raw.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY }
    if (/[.eE]/.test(raw)) return { float: Number(raw) }
    return { int: BigInt(raw) }
  }

  private propsText(): string {
    if (!this.peek('{')) return ''
    const map = this.mapEntries(() => this.value())
    return map.length === 0 ? '' : sortedMap(map)
  }

  private mapEntries<T>(item: () => T): [string, T][] {
    this.eat('{')
    const entries: [string, T][] = []
    if (!this.peek('}')) {
      do {
        const key = this.name()
        this.eat(':')
        entries.push([key, item()])
      } while (this.tryEat(','))
    }
    this.eat('}')
    return entries
  }

  private tryEat(s: string): boolean {
    if (!this.peek(s)) return false
    this.pos += s.length
    return true
  }

  private nodeText(): string {
    this.eat('(')
    const labels: string[] = []
    while (this.tryEat(':')) labels.push(this.name())
    const props = this.propsText()
    this.eat(')')
    return node(labels, props)
  }

  private relText(): string {
    this.eat('[')
    this.eat(':')
    const type = this.name()
    const props = this.propsText()
    this.eat(']')
    return rel(type, props)
  }

  value(): string {
    this.ws()
    const rest = this.text.slice(this.pos)
    if (rest.startsWith('null')) return this.word('null', 'null')
    if (rest.startsWith('true')) return this.word('true', 'true')
    if (rest.startsWith('false')) return this.word('false', 'false')
    if (rest.startsWith('NaN')) return this.word('NaN', float(Number.NaN))
    if (rest.startsWith("'") || rest.startsWith('"')) return JSON.stringify(this.string())
    if (rest.startsWith('(')) return this.nodeText()
    if (rest.startsWith('<')) {
      this.eat('<')
      let out = `<${this.nodeText()}`
      while (!this.peek('>')) {
        if (this.tryEat('<-')) {
          const r = this.relText()
          this.eat('-')
          out += `<-${r}-`
        } else {
          this.eat('-')
          const r = this.relText()
          this.eat('->')
          out += `-${r}->`
        }
        out += this.nodeText()
      }
      this.eat('>')
      return `${out}>`
    }
    if (rest.startsWith('[')) {
      if (/^\[\s*:/.test(rest)) return this.relText()
      this.eat('[')
      const items: string[] = []
      if (!this.peek(']')) {
        do items.push(this.value())
        while (this.tryEat(','))
      }
      this.eat(']')
      return list(items, this.options)
    }
    if (rest.startsWith('{')) return sortedMap(this.mapEntries(() => this.value()))
    const n = this.number()
    return 'int' in n ? n.int.toString() : float(n.float)
  }

  jsValue(): unknown {
    this.ws()
    const rest = this.text.slice(this.pos)
    if (rest.startsWith('null')) return this.word('null', null)
    if (rest.startsWith('true')) return this.word('true', true)
    if (rest.startsWith('false')) return this.word('false', false)
    if (rest.startsWith("'") || rest.startsWith('"')) return this.string()
    if (rest.startsWith('[')) {
      this.eat('[')
      const items: unknown[] = []
      if (!this.peek(']')) {
        do items.push(this.jsValue())
        while (this.tryEat(','))
      }
      this.eat(']')
      return items
    }
    if (rest.startsWith('{')) return Object.fromEntries(this.mapEntries(() => this.jsValue()))
    const n = this.number()
    return 'int' in n
      ? n.int >= -BigInt(Number.MAX_SAFE_INTEGER) && n.int <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(n.int)
        : n.int
      : n.float
  }

  private word<T>(word: string, value: T): T {
    this.pos += word.length
    return value
  }
}
