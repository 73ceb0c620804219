import type { CypherMode } from '@service/core'

const MODES: Record<string, CypherMode> = {
  read: 'read',
  readonly: 'read',
  read_only: 'read',
  write: 'write',
  mutation: 'write',
  validate: 'validate',
  validate_only: 'validate',
  auto: 'auto',
}

/** The execute route's mode: trimmed, any case, with the reference's aliases; absent or unknown is auto. */
export const parseMode = (mode: string | undefined): CypherMode =>
  MODES[mode?.trim().toLowerCase() ?? ''] ?? 'auto'
