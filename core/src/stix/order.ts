/** A comparator over string keys in priority order: the one deterministic ordering rule of outcomes and findings. */
export const byKeys =
  <T>(...keys: ((item: T) => string)[]) =>
  (a: T, b: T): number => {
    for (const key of keys) {
      const x = key(a)
      const y = key(b)
      if (x !== y) return x < y ? -1 : 1
    }
    return 0
  }
