/**
 * Whether an objective asks about the past: "what was the address before the move", "which app did the user use
 * to use", "the previous manager", "in 2023". Then records no longer valid are what it asks for, and recall does
 * not demote them below what holds now. English cue words, and a year before the current one.
 */
const PAST_WORDS =
  /\b(before|previous(ly)?|used to|formerly|former|earlier|prior|originally|no longer|anymore|any more|back then|at the time|old|past|until|ex)\b/i

const YEAR = /\b(19\d\d|20\d\d)\b/g

export function asksAboutPast(objective: string, nowMs: number): boolean {
  if (PAST_WORDS.test(objective)) return true
  const thisYear = new Date(nowMs).getUTCFullYear()
  for (const match of objective.matchAll(YEAR)) if (Number(match[1]) < thisYear) return true
  return false
}

/**
 * The years a past question names ("where did X work in 2022"), as one window of epoch ms from the first of the
 * earliest to the end of the latest; null when it names no past year.
 */
export function pastYears(objective: string, nowMs: number): { start: number; end: number } | null {
  const thisYear = new Date(nowMs).getUTCFullYear()
  const years = [...objective.matchAll(YEAR)].map((m) => Number(m[1])).filter((y) => y < thisYear)
  if (years.length === 0) return null
  return { start: Date.UTC(Math.min(...years), 0, 1), end: Date.UTC(Math.max(...years) + 1, 0, 1) }
}
