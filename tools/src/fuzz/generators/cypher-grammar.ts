import * as fc from 'fast-check'

/**
 * Grammar-aware Cypher: random syntax trees printed to text. Names come from a small pool that the
 * fuzz graph uses, so many queries bind and run; some names stay unbound on purpose.
 */
const VARIABLES = ['n', 'm', 'r', 'x', 'p', 'y', 'unbound'] as const
const LABELS = ['A', 'B', 'C', 'Missing', '`odd label`', 'constructor'] as const
const TYPES = ['R', 'S', 'T'] as const
// Object.prototype names are in the pools on purpose: plain-object lookups keyed by input answer them.
const KEYS = ['name', 'n', 'xs', 'f', 'missing', '`a key`', '__proto__', 'constructor'] as const
const FUNCTIONS = [
  'abs',
  'ceil',
  'floor',
  'round',
  'sign',
  'sqrt',
  'exp',
  'log',
  'log10',
  'rand',
  'toInteger',
  'toFloat',
  'toString',
  'toBoolean',
  'toLower',
  'toUpper',
  'trim',
  'ltrim',
  'rtrim',
  'reverse',
  'replace',
  'split',
  'substring',
  'left',
  'right',
  'size',
  'length',
  'head',
  'last',
  'tail',
  'range',
  'keys',
  'labels',
  'type',
  'id',
  'properties',
  'nodes',
  'relationships',
  'startNode',
  'endNode',
  'coalesce',
  'exists',
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'collect',
  'stDev',
  'percentileCont',
  'percentileDisc',
  'timestamp',
  'elementId',
  'isEmpty',
  'noSuchFunction',
] as const
const BINARY = [
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  'AND',
  'OR',
  'XOR',
  '=',
  '<>',
  '<',
  '>',
  '<=',
  '>=',
  'IN',
  'STARTS WITH',
  'ENDS WITH',
  'CONTAINS',
  '=~',
] as const

const integer = fc.oneof(
  { arbitrary: fc.integer({ min: -10, max: 10 }).map(String), weight: 60 },
  fc.constantFrom(
    '9223372036854775807',
    '-9223372036854775808',
    '9223372036854775808',
    '9007199254740993',
    '0x7FFFFFFFFFFFFFFF',
    '0o17',
    '-0',
    '1' + '0'.repeat(30),
  ),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
)
const small = <T>(arbitrary: fc.Arbitrary<T>, weight: number) => ({ arbitrary, weight })
const float = fc.oneof(
  { arbitrary: fc.constantFrom('0.5', '1.0', '-2.5', '3.14'), weight: 6 },
  fc
    .double({ noNaN: true, noDefaultInfinity: true })
    .map((d) => (/[.e]/.test(String(d)) ? String(d) : `${d}.0`)),
  fc.constantFrom('1e308', '1e309', '-0.0', '.5', '5e-324', '0.0 / 0.0'),
)
const stringLiteral = fc
  .oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('', '\\u0041', '\\n', "it\\'s", '%', '.*', '(a|b)*c', '[', '\\\\', '🙂', 'x'.repeat(300)),
  )
  .map((s) => `'${s.replaceAll("'", "\\'")}'`)
const variable = fc.oneof(
  { arbitrary: fc.constantFrom('n', 'm', 'r'), weight: 6 },
  fc.constantFrom(...VARIABLES),
)
const label = fc.constantFrom(...LABELS)
const relType = fc.constantFrom(...TYPES)
const key = fc.constantFrom(...KEYS)
const param = fc.constantFrom('$p0', '$p1', '$p2', '$missing', '$0')

const nodePattern = (expr: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.option(variable), fc.array(label, { maxLength: 2 }), fc.option(propMap(expr), { freq: 4 }))
    .map(
      ([v, labels, props]) => `(${v ?? ''}${labels.map((l) => `:${l}`).join('')}${props ? ` ${props}` : ''})`,
    )

const relPattern = fc
  .tuple(
    fc.option(variable),
    fc.array(relType, { maxLength: 2 }),
    fc.option(fc.constantFrom('*', '*2', '*1..3', '*..2', '*0..', '*3..1', '*..99', '*1..2')),
    fc.constantFrom('-', '->', '<-'),
  )
  .map(([v, types, length, dir]) => {
    const inner = `${v ?? ''}${types.length ? `:${types.join('|')}` : ''}${length ?? ''}`
    const body = inner === '' ? '' : `[${inner}]`
    return dir === '->' ? `-${body}->` : dir === '<-' ? `<-${body}-` : `-${body}-`
  })

const propMap = (expr: fc.Arbitrary<string>) =>
  fc
    .array(fc.tuple(key, expr), { maxLength: 3 })
    .map((entries) => `{${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}`)

const patternPart = (expr: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.option(fc.constant('p = ')),
      nodePattern(expr),
      fc.array(fc.tuple(relPattern, nodePattern(expr)), { maxLength: 1 }),
    )
    .map(([named, first, rest]) => `${named ?? ''}${first}${rest.map(([r, n]) => r + n).join('')}`)

/** Expressions as text; depth grows through `fc.letrec`, bounded by `depthSize`. */
export const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => {
  const expr = tie('expr')
  return {
    expr: fc.oneof(
      { depthSize: 'xsmall', maxDepth: 4, withCrossShrink: true },
      small(integer, 8),
      small(float, 2),
      small(stringLiteral, 4),
      small(fc.constantFrom('true', 'false', 'null'), 3),
      small(param, 2),
      small(variable, 6),
      small(
        fc.tuple(variable, key).map(([v, k]) => `${v}.${k}`),
        6,
      ),
      fc.array(expr, { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
      propMap(expr),
      fc.tuple(expr, fc.constantFrom(...BINARY), expr).map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(fc.constantFrom('-', '+', 'NOT '), expr).map(([op, a]) => `${op}(${a})`),
      fc.tuple(expr, expr).map(([a, i]) => `(${a})[${i}]`),
      fc.tuple(expr, fc.option(expr), fc.option(expr)).map(([a, f, t]) => `(${a})[${f ?? ''}..${t ?? ''}]`),
      fc.tuple(expr, fc.boolean()).map(([a, neg]) => `(${a} IS ${neg ? 'NOT ' : ''}NULL)`),
      fc.tuple(variable, label).map(([v, l]) => `(${v}:${l})`),
      fc
        .tuple(fc.constantFrom(...FUNCTIONS), fc.boolean(), fc.array(expr, { maxLength: 3 }))
        .map(([f, distinct, args]) => `${f}(${distinct ? 'DISTINCT ' : ''}${args.join(', ')})`),
      fc.constant('count(*)'),
      fc
        .tuple(
          fc.option(expr),
          fc.array(fc.tuple(expr, expr), { minLength: 1, maxLength: 2 }),
          fc.option(expr),
        )
        .map(
          ([subject, whens, otherwise]) =>
            `CASE ${subject ?? ''} ${whens.map(([w, t]) => `WHEN ${w} THEN ${t}`).join(' ')}${otherwise ? ` ELSE ${otherwise}` : ''} END`,
        ),
      fc
        .tuple(variable, expr, fc.option(expr), fc.option(expr))
        .map(
          ([v, src, where, proj]) =>
            `[${v} IN ${src}${where ? ` WHERE ${where}` : ''}${proj ? ` | ${proj}` : ''}]`,
        ),
      fc
        .tuple(fc.constantFrom('all', 'any', 'none', 'single'), variable, expr, expr)
        .map(([q, v, src, where]) => `${q}(${v} IN ${src} WHERE ${where})`),
      fc
        .tuple(variable, expr, variable, expr, expr)
        .map(([acc, init, v, src, body]) => `reduce(${acc} = ${init}, ${v} IN ${src} | ${body})`),
      fc
        .tuple(variable, fc.array(key, { maxLength: 2 }))
        .map(([v, ks]) => `${v} {${ks.map((k) => `.${k}`).join(', ')}}`),
      patternPart(fc.constant('1')).map((p) => `exists(${p.replace('p = ', '')})`),
      patternPart(fc.constant('1')).map((p) => `[${p.replace('p = ', '')} | 1]`),
    ),
  }
}).expr

const projectionItems = fc
  .array(fc.tuple(expression, fc.option(variable)), { minLength: 1, maxLength: 3 })
  .map((items) => items.map(([e, alias]) => (alias ? `${e} AS ${alias}` : e)).join(', '))
const projection = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('*'), projectionItems),
    fc.option(fc.array(fc.tuple(expression, fc.boolean()), { minLength: 1, maxLength: 2 })),
    fc.option(fc.oneof(integer, param, expression)),
    fc.option(fc.oneof(integer, param, expression)),
  )
  .map(
    ([distinct, items, order, skip, limit]) =>
      `${distinct ? 'DISTINCT ' : ''}${items}${order ? ` ORDER BY ${order.map(([e, d]) => `${e}${d ? ' DESC' : ''}`).join(', ')}` : ''}${skip ? ` SKIP ${skip}` : ''}${limit ? ` LIMIT ${limit}` : ''}`,
  )
const where = fc.option(expression).map((w) => (w ? ` WHERE ${w}` : ''))
const setItem = fc.oneof(
  fc.tuple(variable, key, expression).map(([v, k, e]) => `${v}.${k} = ${e}`),
  fc
    .tuple(variable, fc.boolean(), fc.oneof(propMap(expression), param, variable))
    .map(([v, merge, e]) => `${v} ${merge ? '+=' : '='} ${e}`),
  fc.tuple(variable, label).map(([v, l]) => `${v}:${l}`),
)
const setItems = fc.array(setItem, { minLength: 1, maxLength: 2 }).map((items) => items.join(', '))

const clause = fc.oneof(
  fc
    .tuple(fc.boolean(), fc.array(patternPart(expression), { minLength: 1, maxLength: 2 }), where)
    .map(([optional, parts, w]) => `${optional ? 'OPTIONAL ' : ''}MATCH ${parts.join(', ')}${w}`),
  fc.tuple(projection, where).map(([p, w]) => `WITH ${p}${w}`),
  fc.tuple(expression, variable).map(([e, v]) => `UNWIND ${e} AS ${v}`),
  fc
    .array(patternPart(expression), { minLength: 1, maxLength: 2 })
    .map((parts) => `CREATE ${parts.join(', ')}`),
  fc
    .tuple(patternPart(expression), fc.option(setItems), fc.option(setItems))
    .map(
      ([part, onCreate, onMatch]) =>
        `MERGE ${part}${onCreate ? ` ON CREATE SET ${onCreate}` : ''}${onMatch ? ` ON MATCH SET ${onMatch}` : ''}`,
    ),
  setItems.map((items) => `SET ${items}`),
  fc
    .array(
      fc.oneof(
        fc.tuple(variable, key).map(([v, k]) => `${v}.${k}`),
        fc.tuple(variable, label).map(([v, l]) => `${v}:${l}`),
      ),
      { minLength: 1, maxLength: 2 },
    )
    .map((items) => `REMOVE ${items.join(', ')}`),
  fc
    .tuple(fc.boolean(), fc.array(fc.oneof(variable, expression), { minLength: 1, maxLength: 2 }))
    .map(([detach, items]) => `${detach ? 'DETACH ' : ''}DELETE ${items.join(', ')}`),
)

const singleQuery = fc
  .tuple(
    fc.option(fc.constant('MATCH (n), (m) OPTIONAL MATCH (n)-[r]->(m)'), { freq: 2 }),
    fc.array(clause, { maxLength: 3 }),
    fc.option(projection),
  )
  .map(([lead, clauses, ret]) => [lead, ...clauses, ret ? `RETURN ${ret}` : null].filter(Boolean).join(' '))

/** A whole query: one or more single queries joined by UNION [ALL]. */
export const cypherQuery: fc.Arbitrary<string> = fc
  .tuple(singleQuery, fc.array(fc.tuple(fc.boolean(), singleQuery), { maxLength: 1 }))
  .map(([first, rest]) => first + rest.map(([all, q]) => ` UNION${all ? ' ALL' : ''} ${q}`).join(''))

/** Parameter maps: the names the grammar uses, with arbitrary JSON (deep, huge, odd) as values. */
export const cypherParams: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    p0: fc.jsonValue({ maxDepth: 4 }),
    p1: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(2 ** 53), fc.constant(-1)),
    p2: fc.oneof(
      fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 5 }),
      fc.dictionary(fc.constantFrom(...KEYS), fc.jsonValue({ maxDepth: 2 })),
    ),
  },
  { requiredKeys: [] },
)

export const CYPHER_MODES = ['read', 'write', 'auto', 'validate'] as const

/** Well-formed query shapes with expression holes, so that most inputs reach the executor. */
const TEMPLATES: readonly ((e: string[]) => string)[] = [
  ([a = '', b = '']) => `MATCH (n:A)-[r]->(m) WHERE ${a} RETURN ${b} AS v ORDER BY v LIMIT 10`,
  ([a = '', b = '']) =>
    `MATCH (n) OPTIONAL MATCH (n)-[r]->(m) RETURN n.name AS k, ${a} AS v, collect(${b}) AS c`,
  ([a = '', b = '']) => `UNWIND ${a} AS x RETURN x, ${b.replaceAll(/\b[nmr]\b/g, 'x')} AS v`,
  ([a = '', b = '']) => `MATCH (n) WITH n, ${a} AS v WHERE ${b} RETURN v, count(*) AS c`,
  ([a = '']) => `RETURN ${a.replaceAll(/\b[nmr]\b/g, '$p0')} AS v`,
  ([a = '', b = '']) => `MATCH (n:A) SET n.name = ${a}, n.n = ${b} RETURN n`,
  ([a = '']) => `CREATE (c:C {v: ${a.replaceAll(/\b[nmr]\b/g, '$p1')}}) RETURN c`,
  ([a = '', b = '']) => `MATCH (n) MERGE (n)-[r:R]->(m:B {k: ${a}}) ON CREATE SET m.v = ${b} RETURN count(*)`,
  ([a = '']) => `MATCH (n)-[r]-(m) WHERE ${a} DETACH DELETE m`,
  ([a = '', b = '']) => `MATCH p = (n)-[*1..3]->(m) WHERE ${a} RETURN p, ${b} AS v LIMIT 5`,
  ([a = '']) => `MATCH (n) RETURN DISTINCT ${a} AS v ORDER BY v SKIP 1`,
  ([a = '', b = '']) => `MATCH (n) WHERE ${a} REMOVE n.n, n:A SET n += ${b.startsWith('{') ? b : '{k: 1}'}`,
]

export const templatedQuery: fc.Arbitrary<string> = fc
  .tuple(fc.nat({ max: TEMPLATES.length - 1 }), fc.array(expression, { minLength: 2, maxLength: 2 }))
  .map(([i, holes]) => (TEMPLATES[i] as (e: string[]) => string)(holes))
