import * as fc from 'fast-check'

/**
 * Token-level mutations of seed queries (the TCK's, and the repository's own corpus): tokens deleted,
 * duplicated, swapped, replaced by other tokens or keywords, junk inserted, queries spliced.
 */
const TOKEN =
  /\s+|'(?:\\.|[^'\\])*'?|"(?:\\.|[^"\\])*"?|`[^`]*`?|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?(?:e[+-]?\d+)?|\$\w*|<>|<=|>=|=~|->|<-|\.\.|\+=|./g

export const tokenize = (text: string): string[] => text.match(TOKEN) ?? []

const EXTRA_TOKENS = [
  'MATCH',
  'OPTIONAL',
  'WHERE',
  'WITH',
  'UNWIND',
  'RETURN',
  'CREATE',
  'MERGE',
  'SET',
  'REMOVE',
  'DELETE',
  'DETACH',
  'UNION',
  'ALL',
  'ORDER',
  'BY',
  'SKIP',
  'LIMIT',
  'DISTINCT',
  'AS',
  'CASE',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'AND',
  'OR',
  'XOR',
  'NOT',
  'IN',
  'IS',
  'NULL',
  'CALL',
  'YIELD',
  'FOREACH',
  'EXISTS',
  'COUNT',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ':',
  ',',
  '.',
  '..',
  '|',
  '*',
  '-',
  '->',
  '<-',
  '=',
  '+=',
  '$p0',
  '0',
  '-1',
  '9223372036854775807',
  '1e999',
  "'",
  '"',
  '`',
  '/*',
  '*/',
  '//',
  '\\',
  '\u0000',
  '\n',
  '🙂',
] as const

type Mutation =
  | { op: 'delete'; at: number }
  | { op: 'duplicate'; at: number }
  | { op: 'swap'; at: number; with: number }
  | { op: 'replace'; at: number; token: string }
  | { op: 'insert'; at: number; token: string }
  | { op: 'truncate'; at: number }

const position = fc.nat({ max: 1000 })

export function mutatedQuery(seeds: readonly string[]): fc.Arbitrary<string> {
  const seedTokens = [...new Set(seeds.flatMap(tokenize))].filter((t) => t.trim() !== '').slice(0, 2000)
  const token = fc.oneof(
    fc.constantFrom(...EXTRA_TOKENS),
    fc.constantFrom(...seedTokens),
    fc.string({ maxLength: 4, unit: 'binary' }),
  )
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ op: fc.constant('delete' as const), at: position }),
    fc.record({ op: fc.constant('duplicate' as const), at: position }),
    fc.record({ op: fc.constant('swap' as const), at: position, with: position }),
    fc.record({ op: fc.constant('replace' as const), at: position, token }),
    fc.record({ op: fc.constant('insert' as const), at: position, token }),
    fc.record({ op: fc.constant('truncate' as const), at: position }),
  )
  return fc
    .tuple(
      fc.constantFrom(...seeds),
      fc.option(fc.constantFrom(...seeds), { freq: 5 }),
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
    )
    .map(([seed, splice, mutations]) => {
      const tokens = tokenize(seed)
      if (splice) {
        const other = tokenize(splice)
        tokens.splice(
          Math.floor(tokens.length / 2),
          tokens.length,
          ...other.slice(Math.floor(other.length / 2)),
        )
      }
      for (const m of mutations) apply(tokens, m)
      return tokens.join('')
    })
}

function apply(tokens: string[], m: Mutation): void {
  if (tokens.length === 0) {
    if (m.op === 'insert' || m.op === 'replace') tokens.push(m.token)
    return
  }
  const at = m.at % tokens.length
  switch (m.op) {
    case 'delete':
      tokens.splice(at, 1)
      break
    case 'duplicate':
      tokens.splice(at, 0, tokens[at] as string)
      break
    case 'swap': {
      const other = m.with % tokens.length
      ;[tokens[at], tokens[other]] = [tokens[other] as string, tokens[at] as string]
      break
    }
    case 'replace':
      tokens[at] = m.token
      break
    case 'insert':
      tokens.splice(at, 0, ` ${m.token} `)
      break
    case 'truncate':
      tokens.length = at
      break
  }
}
