import type { GraphReader } from '../graph/types.js'
import { tokenize } from '../seed/tokenizer.js'
import { MEMORY_LABEL } from './layout.js'
import { contentWords, relationRoot, rootsMeet } from './recall-relations.js'

/**
 * The kind of memory an objective asks for: its expected answer type, as question answering systems read it.
 * "What decisions came out of …" asks for decisions, "Which team is … in" for a team, "Who …" for a person. The
 * vocabulary is the memory kinds the workspace holds, never a fixed list (a word names a kind when their roots
 * meet), and "who"/"whom" name the person-like kinds. Memories of another kind then rank below
 * (recall-fusion.ts `OFF_ANSWER_KIND`).
 */

/** Kinds that a "who" question asks for, when the workspace holds them. */
const PERSON_KINDS = new Set(['person', 'people', 'contact', 'colleague', 'individual', 'member'])

/** Kinds seen per store: memories only grow the set, so each recall scans the nodes created since. */
const seenKinds = new WeakMap<GraphReader, { scanned: number; kinds: Set<string> }>()

/** The distinct kinds of this workspace's memories (a deleted kind may linger: harmless). */
export function workspaceMemoryKinds(reader: GraphReader & { nextNodeId: number }): ReadonlySet<string> {
  let seen = seenKinds.get(reader)
  if (seen === undefined) {
    seen = { scanned: 0, kinds: new Set() }
    seenKinds.set(reader, seen)
  }
  const label = reader.names.lookup(MEMORY_LABEL)
  const key = reader.names.lookup('kind')
  if (label >= 0 && key >= 0)
    for (let id = seen.scanned; id < reader.nextNodeId; id++) {
      const node = reader.node(id)
      if (node === undefined || !node.labels.includes(label)) continue
      const kind = node.props.get(key)
      if (typeof kind === 'string') seen.kinds.add(kind)
    }
  seen.scanned = Math.max(seen.scanned, reader.nextNodeId)
  return seen.kinds
}

/**
 * The memory kinds the objective asks for; empty when it names none (most lookups). The answer type sits where a
 * question puts it: "who"/"whom" (person-like kinds) or the word right after "what"/"which" ("which team …"). A
 * kind named later is what the question is about, not what it asks for ("what did campaigns attributed to X
 * use"), and a statement ("malware that wipes disks") describes its answer without typing it (judged sets grade
 * the technique as the answer there).
 */
export function answerKinds(objective: string, kinds: ReadonlySet<string>): Set<string> {
  const out = new Set<string>()
  if (kinds.size === 0) return out
  const words = tokenize(objective)
  const first = words[0]
  if (first === 'who' || first === 'whom') {
    for (const kind of kinds) if (PERSON_KINDS.has(kind.toLowerCase())) out.add(kind)
    return out
  }
  // A statement ("malware that wipes disks") describes what it looks for rather than naming its type.
  const head = first === 'what' || first === 'which' ? words[1] : undefined
  if (head === undefined) return out
  const root = relationRoot(head)
  // A kind of one word is named by one word; a longer kind (attack-pattern) by all of its words, not by one.
  for (const kind of kinds) {
    const kindWords = contentWords(kind)
    if (kindWords.length === 1 && rootsMeet(root, relationRoot(kindWords[0] as string))) out.add(kind)
  }
  return out
}

/**
 * Waypoint kinds: the other memory kinds a typed question names ("who else is in the same team as Y" names
 * `team`, "what decisions came out of the meetings about X" names `meeting`). The answer lies beyond a memory of
 * that kind, which is context, not the answer: the walk credits the far end of a path through one
 * (recall-rank.ts). Only for a question that types its answer (a lookup "notes on the X project" names the thing
 * it wants), and never the answer kinds themselves. The words naming them say how, not what: like relation
 * words they leave the text query, so every team does not seed the walk for "the same team as Y".
 */
export function waypointKinds(
  objective: string,
  kinds: ReadonlySet<string>,
  answer: ReadonlySet<string>,
): { kinds: Set<string>; words: Set<string> } {
  const out = { kinds: new Set<string>(), words: new Set<string>() }
  if (answer.size === 0) return out
  const words = contentWords(objective).map((w) => [w, relationRoot(w)] as const)
  for (const kind of kinds) {
    if (answer.has(kind)) continue
    const kindWords = contentWords(kind)
    if (kindWords.length !== 1) continue
    const root = relationRoot(kindWords[0] as string)
    for (const [word, r] of words)
      if (rootsMeet(r, root)) {
        out.kinds.add(kind)
        out.words.add(word)
      }
  }
  return out
}
