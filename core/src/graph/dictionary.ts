/**
 * Values numbered in the order first seen: a column stores the small number, the dictionary the value once
 * (interned names, string columns, checkpoint label lists, key orders and relationship types).
 */
export class Dictionary<T> {
  /** The values by number. */
  readonly values: T[] = []
  private readonly numbers = new Map<string, number>()

  /** The number of a value already seen, by its key. */
  known(key: string): number | undefined {
    return this.numbers.get(key)
  }

  /** The number of `value`, whose identity is `key`; a value not seen before gets the next one. */
  number(key: string, value: T): number {
    let n = this.numbers.get(key)
    if (n === undefined) {
      n = this.values.length
      this.values.push(value)
      this.numbers.set(key, n)
    }
    return n
  }
}
