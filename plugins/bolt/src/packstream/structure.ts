/**
 * PackStream v1 values as this codec holds them. Integers are always `bigint` and floats always `number`,
 * so the two never merge (a Bolt float 1.0 stays a float); maps are `Map`s (keys are strings on the wire);
 * byte arrays are `Uint8Array`; a structure is its signature byte and its fields.
 */
export class Structure {
  constructor(
    readonly signature: number,
    readonly fields: PackValue[],
  ) {}
}

export type PackValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | PackValue[]
  | Map<string, PackValue>
  | Structure

/** Structure signatures of Bolt 5 (graph, temporal and spatial types). */
export const Sig = {
  Node: 0x4e,
  Relationship: 0x52,
  UnboundRelationship: 0x72,
  Path: 0x50,
  Date: 0x44,
  Time: 0x54,
  LocalTime: 0x74,
  DateTime: 0x49,
  DateTimeZoneId: 0x69,
  LocalDateTime: 0x64,
  Duration: 0x45,
  Point2D: 0x58,
  Point3D: 0x59,
} as const

/** Field counts of the value structures (Bolt 5): a decoded structure with another count is malformed. */
export const VALUE_STRUCTURE_FIELDS: ReadonlyMap<number, number> = new Map([
  [Sig.Node, 4],
  [Sig.Relationship, 8],
  [Sig.UnboundRelationship, 4],
  [Sig.Path, 3],
  [Sig.Date, 1],
  [Sig.Time, 2],
  [Sig.LocalTime, 1],
  [Sig.DateTime, 3],
  [Sig.DateTimeZoneId, 3],
  [Sig.LocalDateTime, 2],
  [Sig.Duration, 4],
  [Sig.Point2D, 3],
  [Sig.Point3D, 4],
])

/** Marker bytes. Tiny forms hold the size in the low nibble (tiny int: the byte itself). */
export const Marker = {
  Null: 0xc0,
  Float64: 0xc1,
  False: 0xc2,
  True: 0xc3,
  Int8: 0xc8,
  Int16: 0xc9,
  Int32: 0xca,
  Int64: 0xcb,
  Bytes8: 0xcc,
  Bytes16: 0xcd,
  Bytes32: 0xce,
  TinyString: 0x80,
  String8: 0xd0,
  String16: 0xd1,
  String32: 0xd2,
  TinyList: 0x90,
  List8: 0xd4,
  List16: 0xd5,
  List32: 0xd6,
  TinyMap: 0xa0,
  Map8: 0xd8,
  Map16: 0xd9,
  Map32: 0xda,
  TinyStruct: 0xb0,
} as const
