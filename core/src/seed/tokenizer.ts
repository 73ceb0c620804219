/**
 * The seed-search tokenizer (FACTS §4): split on anything that is not a letter or digit, keep tokens of
 * two or more characters, lower-case. Unicode-aware: `\p{L}\p{N}` instead of ASCII classes, NFKC first
 * so full-width and compatibility forms meet their plain spellings.
 */
const SPLIT = /[^\p{L}\p{N}\p{M}]+/u

/** Objective words that never select a seed on their own (FACTS §4, exactly). */
export const STOPWORDS: ReadonlySet<string> = new Set([
  'a',
  'all',
  'an',
  'and',
  'are',
  'find',
  'for',
  'from',
  'identify',
  'in',
  'is',
  'list',
  'of',
  'on',
  'or',
  'show',
  'that',
  'the',
  'this',
  'tied',
  'to',
  'what',
  'which',
  'with',
])

/** Document tokens, in order, duplicates kept (term frequency and length need them). */
export function tokenize(text: string): string[] {
  const out: string[] = []
  for (const raw of text.normalize('NFKC').toLowerCase().split(SPLIT)) {
    // Length in code points, not UTF-16 units: one astral letter is one character.
    if (raw.length >= 2 && (raw.length > 2 || [...raw].length >= 2)) out.push(raw)
  }
  return out
}

/** Objective terms: tokens without duplicates (first occurrence order) and without stopwords. */
export function objectiveTerms(objective: string): string[] {
  return [...new Set(tokenize(objective))].filter((t) => !STOPWORDS.has(t))
}
