import { ownValue } from '../own-key.js'
import { AGGREGATES } from './analyzer.js'
import { FUNCTIONS, type FunctionDef } from './functions.js'
import { APOC_FUNCTIONS } from './functions-apoc.js'
import { MORE_FUNCTIONS } from './functions-more.js'
import type { FunctionInfo } from './procedures/registry.js'
import { SPATIAL_FUNCTIONS } from './spatial/functions.js'

/** Every scalar function by lower-case name: the core table, then the later modules (which may extend an arity). */
const TABLE: Record<string, FunctionDef> = Object.assign(
  Object.create(null),
  FUNCTIONS,
  MORE_FUNCTIONS,
  SPATIAL_FUNCTIONS,
  APOC_FUNCTIONS,
)

export function lookupFunction(lowerName: string): FunctionDef | undefined {
  return ownValue(TABLE, lowerName)
}

/** Neo4j's spelling of the names whose case the lower-case table loses. */
const SPELLING = [
  'elementId',
  'toString',
  'toStringOrNull',
  'toInteger',
  'toIntegerOrNull',
  'toFloat',
  'toFloatOrNull',
  'toBoolean',
  'toBooleanOrNull',
  'toLower',
  'toUpper',
  'startNode',
  'endNode',
  'isEmpty',
  'valueType',
  'toBooleanList',
  'toFloatList',
  'toIntegerList',
  'toStringList',
  'nullIf',
  'point.withinBBox',
  'isNaN',
  'randomUUID',
  'isNormalized',
  'percentileCont',
  'percentileDisc',
  'stDev',
  'stDevP',
  'apoc.convert.toJson',
  'apoc.convert.fromJsonMap',
  'apoc.convert.fromJsonList',
  'apoc.convert.toString',
  'apoc.coll.toSet',
  'apoc.coll.indexOf',
  'apoc.text.levenshteinDistance',
  'apoc.text.camelCase',
  'apoc.text.upperCamelCase',
  'apoc.text.snakeCase',
  'apoc.map.fromPairs',
  'apoc.map.fromLists',
  'apoc.map.setKey',
  'apoc.map.removeKey',
  'apoc.map.removeKeys',
]
const SPELLED = new Map(SPELLING.map((name) => [name.toLowerCase(), name]))

function category(name: string): string {
  if (name.startsWith('apoc.')) return name.split('.').slice(0, 2).join('.')
  if (name.startsWith('vector.')) return 'Vector'
  if (name === 'point' || name.startsWith('point.')) return 'Spatial'
  return 'Scalar'
}

/** The catalog SHOW FUNCTIONS lists. */
export function functionCatalog(): FunctionInfo[] {
  const out: FunctionInfo[] = []
  for (const [lower, def] of Object.entries(TABLE)) {
    const name = SPELLED.get(lower) ?? lower
    const arity =
      def.min === def.max
        ? `${def.min}`
        : def.max === Number.POSITIVE_INFINITY
          ? `${def.min}+`
          : `${def.min}..${def.max}`
    out.push({
      name,
      category: category(name),
      description: `${name}() with ${arity} argument(s)`,
      signature: `${name}(${arity})`,
      aggregating: false,
    })
  }
  for (const lower of AGGREGATES) {
    const name = SPELLED.get(lower) ?? lower
    out.push({
      name,
      category: 'Aggregating',
      description: `aggregate function ${name}()`,
      signature: `${name}(input)`,
      aggregating: true,
    })
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
