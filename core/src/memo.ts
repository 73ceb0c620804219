/**
 * `compute` remembered by key, for small key sets seen over and over (label names, label lists): past `max`
 * keys everything is forgotten at once, which bounds memory without bookkeeping. Results are shared, so
 * callers must not mutate them.
 */
export function memoize<T>(compute: (key: string) => T, max = 4096): (key: string) => T {
  const known = new Map<string, T>()
  return (key) => {
    let value = known.get(key)
    if (value === undefined) {
      if (known.size >= max) known.clear()
      value = compute(key)
      known.set(key, value)
    }
    return value
  }
}
