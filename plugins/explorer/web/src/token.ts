/**
 * The bearer token: typed once or handed over in the URL fragment (`#token=…`, which browsers never send to
 * the server), kept in sessionStorage (gone when the tab closes), never in a query string or a log.
 */
export const TOKEN_KEY = 'graph-explorer.token'

export interface FragmentToken {
  token: string | null
  /** What is left of the fragment once the token is taken out ('' when nothing). */
  rest: string
}

export function takeFragmentToken(hash: string): FragmentToken {
  const fragment = hash.startsWith('#') ? hash.slice(1) : hash
  if (fragment === '') return { token: null, rest: '' }
  const params = new URLSearchParams(fragment)
  const token = params.get('token')
  params.delete('token')
  const trimmed = token?.trim() ?? ''
  return { token: trimmed === '' ? null : trimmed, rest: params.toString() }
}

export interface TokenStore {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

export class TokenKeeper {
  constructor(private readonly store: TokenStore) {}

  get(): string | null {
    return this.store.getItem(TOKEN_KEY)
  }

  set(token: string): void {
    this.store.setItem(TOKEN_KEY, token.trim())
  }

  clear(): void {
    this.store.removeItem(TOKEN_KEY)
  }
}
