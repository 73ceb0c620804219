interface RequestIds {
  workspaceId?: string | undefined
  sessionId?: string | undefined
  budgetRef?: string | undefined
}

/**
 * Workspace, session and budget ids of a STIX request as every door takes them (FACTS §5: blank ignored):
 * trimmed, and a blank one dropped so the default applies. Applied by the core entry points, so the embedded
 * API and the HTTP routes agree.
 */
export function givenIds<T extends RequestIds>(request: T): T {
  const out = { ...request }
  for (const key of ['workspaceId', 'sessionId', 'budgetRef'] as const) {
    const value = request[key]?.trim()
    out[key] = (value === '' ? undefined : value) as T[typeof key]
  }
  return out
}
