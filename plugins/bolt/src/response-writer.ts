import { Response } from './messages.js'
import { Packer } from './packstream/packer.js'
import type { PackValue } from './packstream/structure.js'
import { packResultValue } from './values.js'

/**
 * A connection's responses, packed and framed straight into one buffer and taken out together: a PULL of
 * many records, or pipelined messages, go to the socket in one write.
 */
export class ResponseWriter {
  private readonly packer = new Packer()

  /** Bytes waiting to be taken. */
  get size(): number {
    return this.packer.size
  }

  reply(signature: number, fields: PackValue[]): void {
    this.packer.beginMessage()
    this.packer.structure(signature, fields)
    this.packer.endMessage()
  }

  /** A RECORD, its values packed as they are (no PackValue tree built first). */
  record(row: unknown[]): void {
    const packer = this.packer
    packer.beginMessage()
    packer.structureHeader(Response.RECORD, 1)
    packer.listHeader(row.length)
    for (const value of row) packResultValue(packer, value as never)
    packer.endMessage()
  }

  /** Everything written since the last take, or null when nothing was. */
  take(): Buffer | null {
    return this.packer.size === 0 ? null : this.packer.finish()
  }
}
