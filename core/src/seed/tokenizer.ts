import { memoize } from '../memo.js'

/**
 * The seed-search tokenizer (FACTS §4): split on anything that is not a letter or digit, keep tokens of
 * two or more characters, lower-case. Unicode-aware: `\p{L}\p{N}` instead of ASCII classes, NFKC first
 * so full-width and compatibility forms meet their plain spellings. On top of FACTS, terms are stemmed
 * lightly (`stem`) on both sides, so "steal"/"stealing" and "PLC"/"PLCs" meet.
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

/**
 * Words of analyst questions that carry no subject ("how do attackers ...", "can they ..."): FACTS'
 * stopwords plus question words, auxiliaries, pronouns and short prepositions. Objective side only.
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set([
  ...STOPWORDS,
  ...'how why when where who whom whose do does did doing done can could would should will shall may might must be been being am was were has have having had it its they them their theirs there these those we us our you your me my he she his her him as at by into onto so than then any some such about via get gets getting use used uses using over out up down not no'.split(
    ' ',
  ),
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

const VOWEL = /[aeiouy]/
const DIGIT = /\p{N}/u

/**
 * A light English stemmer (plural, -ing, -ed, a final e), conservative on purpose: a wrong merge costs
 * more precision than a missed one costs recall. Tokens with digits (T0829, S0603) and tokens of four
 * characters or fewer stay as they are, apart from a plural s (PLCs -> plc).
 */
export function stem(token: string): string {
  if (DIGIT.test(token)) return token
  let t = token
  if (t.length > 4 && t.endsWith('ies')) t = `${t.slice(0, -3)}y`
  else if (t.length > 3 && t.endsWith('s') && !/(ss|us|is|ys)$/.test(t)) t = t.slice(0, -1)
  if (t.length > 5 && t.endsWith('ing') && VOWEL.test(t.slice(0, -3))) t = undouble(t.slice(0, -3))
  else if (t.length > 4 && t.endsWith('ied')) t = `${t.slice(0, -3)}y`
  else if (t.length > 5 && t.endsWith('ed') && VOWEL.test(t.slice(0, -2))) t = undouble(t.slice(0, -2))
  if (t.length > 4 && t.endsWith('e')) t = t.slice(0, -1)
  return t
}

/** stopp -> stop, but keep ll/ss/ff/zz (install, access) as they are. */
const undouble = (t: string) => (/([^aeiouylsfz])\1$/.test(t) ? t.slice(0, -1) : t)

/**
 * Stems by token: indexing stems the same words again and again (bounded: cleared when full). 32k covers a
 * working vocabulary; at 200k the table held 8 MB once a store's unique tokens (addresses, hashes) filled
 * it, for a stem that costs a few regex tests to redo.
 */
const cachedStem = memoize(stem, 32_768)

/** Document tokens, stemmed, in order. */
export const analyze = (text: string): string[] => tokenize(text).map(cachedStem)

/** A text's stems in order, and the stems of its content words (question words skipped) in order. */
export function analyzeWithContent(text: string): { stems: string[]; content: string[] } {
  const out = { stems: [] as string[], content: [] as string[] }
  for (const token of tokenize(text)) {
    const s = cachedStem(token)
    out.stems.push(s)
    if (!QUESTION_WORDS.has(token)) out.content.push(s)
  }
  return out
}

/** Objective terms: tokens without duplicates (first occurrence order) and without stopwords. */
export function objectiveTerms(objective: string): string[] {
  return [...new Set(tokenize(objective))].filter((t) => !STOPWORDS.has(t))
}

/** The stemmed terms seed search matches: question words dropped, duplicates after stemming dropped. */
export const searchTerms = (objective: string): string[] => [...termWords(objective).keys()]

/** Each search term with the first objective word it came from (messages show words, not stems). */
export function termWords(objective: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const word of tokenize(objective))
    if (!QUESTION_WORDS.has(word) && !out.has(stem(word))) out.set(stem(word), word)
  return out
}
