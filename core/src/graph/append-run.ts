/** Above this degree an adjacency list is grown by push (V8 may make a huge `new Array(n)` sparse). */
const PREALLOCATE_MAX = 32_768

/** `list` followed by ids[from .. to), as a new array of exactly that size (`list` itself when the run is empty). */
export function appendRun(list: number[], ids: Int32Array, from: number, to: number): number[] {
  if (to === from) return list
  const size = list.length + (to - from)
  if (size > PREALLOCATE_MAX) {
    const out = list.slice()
    for (let i = from; i < to; i++) out.push(ids[i] as number)
    return out
  }
  const out = new Array<number>(size)
  for (let i = 0; i < list.length; i++) out[i] = list[i] as number
  for (let i = from, at = list.length; i < to; i++, at++) out[at] = ids[i] as number
  return out
}
