/**
 * Whether process `pid` holds the listening TCP socket on `port` (Linux /proc). `freePort` hands out a
 * port that was free a moment ago; two servers started side by side can be given the same one, and the
 * readiness probe of the one that lost the race is then answered by the other. Elsewhere (no /proc)
 * nothing can be checked and this says yes.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

const LISTEN = '0A'

function listeningInodes(port: number): Set<string> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0')
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/)
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (cols.length < 10 || cols[3] !== LISTEN) continue
      if (cols[1]?.split(':')[1] === hex) inodes.add(cols[9] as string)
    }
  }
  return inodes
}

export function holdsPort(pid: number | undefined, port: number): boolean {
  if (pid === undefined) return false
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return true // no /proc here: nothing to check
  }
  const inodes = listeningInodes(port)
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
      if (inode !== undefined && inodes.has(inode)) return true
    } catch {
      // the fd closed meanwhile
    }
  }
  return false
}
