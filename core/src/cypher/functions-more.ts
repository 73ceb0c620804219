import { randomUUID } from 'node:crypto'
import { runtimeError, typeError } from './errors.js'
import type { FunctionDef } from './functions.js'
import { FUNCTIONS } from './functions.js'
import { equals, isNumber, typeName, type Value } from './values.js'

// Functions of Neo4j 5's list the core table lacks: rounding with a precision and mode, list conversions,
// nullIf, trimming of given characters, normalisation, vector similarity, haversin, isNaN, randomUUID.

const argError = (name: string, value: Value): Error =>
  typeError(`${name}() does not accept an argument of type ${typeName(value)}`)

function str(name: string, value: Value): string {
  if (typeof value !== 'string') throw argError(name, value)
  return value
}

function number(name: string, value: Value): number {
  if (!isNumber(value)) throw argError(name, value)
  return Number(value)
}

const ROUNDING_MODES = new Set(['UP', 'DOWN', 'CEILING', 'FLOOR', 'HALF_UP', 'HALF_DOWN', 'HALF_EVEN'])

/**
 * `round(x, precision, mode)` as Java's BigDecimal.setScale on the shortest decimal form of x (what Neo4j
 * does): `round(2.675, 2)` is 2.68, not the 2.67 binary arithmetic gives.
 */
export function roundTo(x: number, precision: number, mode: string): number {
  if (!Number.isFinite(x)) return x
  const [mantissa, exponentText] = x.toExponential().split('e') as [string, string]
  const negative = mantissa.startsWith('-')
  const digits = mantissa.replace('-', '').replace('.', '')
  // value = digits * 10^(exponent - (digits.length - 1))
  const scale = Number(exponentText) - (digits.length - 1)
  const shift = -scale - precision // digits to drop
  if (shift <= 0) return x
  const magnitude = BigInt(digits)
  const divisor = 10n ** BigInt(shift)
  let kept = magnitude / divisor
  const rest = magnitude % divisor
  if (rest !== 0n) {
    const twice = rest * 2n
    const half = twice === divisor ? 0 : twice > divisor ? 1 : -1
    const up = (() => {
      switch (mode) {
        case 'UP':
          return true
        case 'DOWN':
          return false
        case 'CEILING':
          return !negative
        case 'FLOOR':
          return negative
        case 'HALF_UP':
          return half >= 0
        case 'HALF_DOWN':
          return half > 0
        default:
          return half > 0 || (half === 0 && kept % 2n === 1n)
      }
    })()
    if (up) kept += 1n
  }
  const value = Number(`${kept}e${-precision}`)
  return negative ? -value : value
}

function listOf(name: string, convert: FunctionDef): FunctionDef {
  return {
    min: 1,
    max: 1,
    fn: ([list], ctx) => {
      if (list === null || list === undefined) return null
      if (!Array.isArray(list)) throw argError(name, list)
      return list.map((item) => {
        try {
          return convert.fn([item], ctx)
        } catch {
          return null
        }
      })
    },
  }
}

function trimChars(name: string, which: 'both' | 'start' | 'end'): FunctionDef {
  return {
    min: 1,
    max: 2,
    fn: ([s, chars]) => {
      if (s === null || chars === null) return null
      const text = str(name, s as Value)
      if (chars === undefined)
        return which === 'both' ? text.trim() : which === 'start' ? text.trimStart() : text.trimEnd()
      const set = [...str(name, chars as Value)]
      if (set.length !== 1 && name === 'trim') {
        throw runtimeError('INVALID_ARGUMENT_VALUE', 'trim() takes a single trim character')
      }
      const chars2 = [...text]
      let from = 0
      let to = chars2.length
      if (which !== 'end') while (from < to && set.includes(chars2[from] as string)) from++
      if (which !== 'start') while (to > from && set.includes(chars2[to - 1] as string)) to--
      return chars2.slice(from, to).join('')
    },
  }
}

function vector(name: string, value: Value): number[] {
  if (!Array.isArray(value)) throw argError(name, value)
  return value.map((item) => {
    if (!isNumber(item)) throw argError(name, item)
    return Number(item)
  })
}

function vectorPair(name: string, a: Value, b: Value): [number[], number[]] {
  const x = vector(name, a)
  const y = vector(name, b)
  if (x.length !== y.length || x.length === 0)
    throw runtimeError(
      'INVALID_ARGUMENT_VALUE',
      `${name}() needs two vectors of the same, non-zero dimension`,
    )
  return [x, y]
}

const FORMS = new Set(['NFC', 'NFD', 'NFKC', 'NFKD'])

function normalForm(value: Value | undefined): 'NFC' | 'NFD' | 'NFKC' | 'NFKD' {
  const form = value === undefined ? 'NFC' : str('normalize', value).toUpperCase()
  if (!FORMS.has(form)) throw runtimeError('INVALID_ARGUMENT_VALUE', `unknown normal form '${form}'`)
  return form as 'NFC' | 'NFD' | 'NFKC' | 'NFKD'
}

export const MORE_FUNCTIONS: Record<string, FunctionDef> = {
  round: {
    min: 1,
    max: 3,
    fn: (args) => {
      const [x, precision, mode] = args
      if (x === null || precision === null || mode === null) return null
      if (!isNumber(x as Value)) throw argError('round', x as Value)
      if (precision === undefined) return Math.floor(Number(x) + 0.5)
      if (typeof precision !== 'bigint') throw argError('round', precision)
      if (precision < 0n)
        throw runtimeError('NEGATIVE_INTEGER_ARGUMENT', 'round() precision must not be negative')
      const name = mode === undefined ? 'HALF_UP' : str('round', mode).toUpperCase()
      if (!ROUNDING_MODES.has(name))
        throw runtimeError('INVALID_ARGUMENT_VALUE', `unknown rounding mode '${name}'`)
      // Precision 0 without a mode rounds as round(x) does: ties towards positive infinity.
      if (precision === 0n && mode === undefined) return Math.floor(Number(x) + 0.5)
      return roundTo(Number(x), Number(precision), name)
    },
  },
  tobooleanlist: listOf('toBooleanList', FUNCTIONS.tobooleanornull as FunctionDef),
  tofloatlist: listOf('toFloatList', FUNCTIONS.tofloatornull as FunctionDef),
  tointegerlist: listOf('toIntegerList', FUNCTIONS.tointegerornull as FunctionDef),
  tostringlist: listOf('toStringList', FUNCTIONS.tostringornull as FunctionDef),
  nullif: { min: 2, max: 2, fn: ([a, b]) => (equals(a as Value, b as Value) === true ? null : (a as Value)) },
  trim: trimChars('trim', 'both'),
  btrim: trimChars('btrim', 'both'),
  ltrim: trimChars('ltrim', 'start'),
  rtrim: trimChars('rtrim', 'end'),
  char_length: {
    min: 1,
    max: 1,
    fn: ([s]) => (s === null ? null : BigInt([...str('char_length', s as Value)].length)),
  },
  character_length: {
    min: 1,
    max: 1,
    fn: ([s]) => (s === null ? null : BigInt([...str('character_length', s as Value)].length)),
  },
  normalize: {
    min: 1,
    max: 2,
    fn: ([s, form]) => (s === null ? null : str('normalize', s as Value).normalize(normalForm(form))),
  },
  isnormalized: {
    min: 1,
    max: 2,
    fn: ([s, form]) => {
      if (s === null) return null
      if (typeof s !== 'string') return null
      return s === s.normalize(normalForm(form))
    },
  },
  // Half the versine: (1 - cos x) / 2, the building block of great-circle distances.
  haversin: {
    min: 1,
    max: 1,
    fn: ([x]) => (x === null ? null : (1 - Math.cos(number('haversin', x as Value))) / 2),
  },
  isnan: {
    min: 1,
    max: 1,
    fn: ([x]) => (x === null ? null : Number.isNaN(number('isNaN', x as Value))),
  },
  randomuuid: { min: 0, max: 0, fn: () => randomUUID() },
  // The row LOAD CSV is reading: its line (integer) and its file's URL; null outside LOAD CSV, as in Neo4j.
  linenumber: { min: 0, max: 0, fn: (_args, ctx) => (ctx.csv ? BigInt(ctx.csv.line) : null) },
  file: { min: 0, max: 0, fn: (_args, ctx) => ctx.csv?.file ?? null },
  'vector.similarity.cosine': {
    min: 2,
    max: 2,
    fn: ([a, b]) => {
      if (a === null || b === null) return null
      const [x, y] = vectorPair('vector.similarity.cosine', a as Value, b as Value)
      let dot = 0
      let nx = 0
      let ny = 0
      for (let i = 0; i < x.length; i++) {
        dot += (x[i] as number) * (y[i] as number)
        nx += (x[i] as number) ** 2
        ny += (y[i] as number) ** 2
      }
      if (nx === 0 || ny === 0) return null
      // Neo4j maps the cosine from [-1, 1] to [0, 1].
      return (1 + dot / Math.sqrt(nx * ny)) / 2
    },
  },
  'vector.similarity.euclidean': {
    min: 2,
    max: 2,
    fn: ([a, b]) => {
      if (a === null || b === null) return null
      const [x, y] = vectorPair('vector.similarity.euclidean', a as Value, b as Value)
      let sum = 0
      for (let i = 0; i < x.length; i++) sum += ((x[i] as number) - (y[i] as number)) ** 2
      return 1 / (1 + sum)
    },
  },
}
