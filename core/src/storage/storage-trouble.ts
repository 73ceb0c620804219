/** One phrase for what the storage said: a full disk is told apart from other failures. */
export function storageTrouble(cause: Error): string {
  if ((cause as NodeJS.ErrnoException).code === 'ENOSPC')
    return 'storage is full (ENOSPC: no space left on device)'
  return `storage failed (${cause.message})`
}
