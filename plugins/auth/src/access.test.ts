import { describe, expect, it } from 'vitest'
import { routeAccess } from './access.js'

describe('route access', () => {
  it('makes only the explorer page shell public', () => {
    for (const url of ['/', '/explorer', '/explorer/*']) expect(routeAccess(url)).toBe('public')
    for (const url of ['/explorer/x', '/explorerx', '/x', '/v1/explorer/sessions'])
      expect(routeAccess(url)).toBe('bearer')
    expect(routeAccess('/v1/admin/license/status')).toBe('admin')
    expect(routeAccess('/health')).toBe('operational')
  })
})
