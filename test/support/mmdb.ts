import { isIP } from 'node:net';

// A test-only writer of the MaxMind DB format (https://maxmind.github.io/MaxMind-DB/): a binary search tree
// over address bits, 16 zero bytes, a data section, then a marker and the metadata map.

/** One side of a tree node: another node, a country's record, or nothing (undefined). A network overrides earlier ones inside it. */
type Side = TreeNode | string | undefined;
interface TreeNode {
  sides: [Side, Side];
}

/** Options of buildCountryMmdb. */
export interface MmdbOptions {
  /** Also reach the IPv4 networks through ::ffff:0:0/96, as MaxMind's own databases do; default true. */
  ipv4Mapped?: boolean;
}

const RECORD_BYTES = 3;
const MAX_RECORD = 2 ** (8 * RECORD_BYTES) - 1;
const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');
const IPV4_DEPTH = 96;
const [STRING, MAP, UINT16, UINT32, UINT64, ARRAY] = [2, 7, 5, 6, 9, 11];

/** A network's place: its country and, for a city database, its city's English name. */
export interface MmdbNetwork {
  network: string;
  country: string;
  city?: string;
}

/**
 * Builds a MaxMind DB (IPv6 tree, IPv4 at ::/96 and ::ffff:0:0/96) mapping each network to
 * {country:{iso_code}}, and {city:{names:{en}}} too for a network given a city (as GeoLite2-City has them).
 */
export function buildCountryMmdb(networks: readonly MmdbNetwork[], options: MmdbOptions = {}): Buffer {
  const keyOf = ({ country, city }: MmdbNetwork) => (city === undefined ? country : `${country}\u0000${city}`);
  const root: TreeNode = { sides: [undefined, undefined] };
  for (const place of networks) {
    const [bits, prefix] = parseNetwork(place.network);
    if (prefix === 0) throw new Error(`a network must be smaller than the whole address space: ${place.network}`);
    nodeAt(root, bits, prefix - 1).sides[bits[prefix - 1]!] = keyOf(place);
  }
  if (options.ipv4Mapped ?? true) {
    const ipv4 = nodeAt(root, bitsOf(new Array<number>(16).fill(0)), IPV4_DEPTH);
    const mapped = bitsOf([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0]);
    nodeAt(root, mapped, IPV4_DEPTH - 1).sides[1] = ipv4;
  }

  // Number the nodes breadth first, the root being node 0; the IPv4-mapped alias is a second edge to one node.
  const nodes = [root];
  const numbers = new Map([[root, 0]]);
  for (let i = 0; i < nodes.length; i++) {
    for (const side of nodes[i]!.sides) {
      if (typeof side === 'object' && !numbers.has(side)) {
        numbers.set(side, nodes.length);
        nodes.push(side);
      }
    }
  }

  const records = new Map<string, Buffer>();
  for (const place of networks) {
    const country = map({ iso_code: string(place.country) });
    records.set(
      keyOf(place),
      place.city === undefined ? map({ country }) : map({ city: map({ names: map({ en: string(place.city) }) }), country }),
    );
  }
  const offsets = new Map<string, number>();
  let offset = 0;
  for (const [country, record] of records) {
    offsets.set(country, offset);
    offset += record.length;
  }

  // A record below node_count is a node, node_count itself means "no data", above it points into the data section.
  const nodeCount = nodes.length;
  const recordValue = (side: Side): number =>
    side === undefined ? nodeCount : typeof side === 'string' ? nodeCount + 16 + offsets.get(side)! : numbers.get(side)!;
  const tree = Buffer.alloc(nodeCount * 2 * RECORD_BYTES);
  nodes.forEach((node, i) => {
    node.sides.forEach((side, s) => {
      const value = recordValue(side);
      if (value > MAX_RECORD) throw new Error('too many networks for 24-bit records');
      tree.writeUIntBE(value, (2 * i + s) * RECORD_BYTES, RECORD_BYTES);
    });
  });

  const metadata = map({
    node_count: uint(UINT32, nodeCount),
    record_size: uint(UINT16, 8 * RECORD_BYTES),
    ip_version: uint(UINT16, 6),
    database_type: string(networks.some((n) => n.city !== undefined) ? 'kurz-test-City' : 'kurz-test-Country'),
    languages: array([string('en')]),
    binary_format_major_version: uint(UINT16, 2),
    binary_format_minor_version: uint(UINT16, 0),
    build_epoch: uint(UINT64, Math.floor(Date.now() / 1000)),
    description: map({ en: string('kurz test country database') }),
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...records.values(), METADATA_MARKER, metadata]);
}

/** The node reached by following the first `depth` bits from `root`, creating it and its parents as needed. */
function nodeAt(root: TreeNode, bits: number[], depth: number): TreeNode {
  let node = root;
  for (let i = 0; i < depth; i++) {
    const bit = bits[i]!;
    let next = node.sides[bit];
    if (typeof next !== 'object') {
      // splitting a network in two: both halves keep its record
      next = { sides: [next, next] };
      node.sides[bit] = next;
    }
    node = next;
  }
  return node;
}

/** A CIDR network as 128 address bits and a prefix length in the IPv6 tree (IPv4 sits at ::/96). */
function parseNetwork(network: string): [bits: number[], prefix: number] {
  const [address = '', length = ''] = network.split('/');
  const version = isIP(address);
  const prefix = Number(length);
  const max = version === 4 ? 32 : 128;
  if (version === 0 || !/^\d+$/.test(length) || prefix > max) throw new Error(`not a CIDR network: ${network}`);
  if (version === 4) return [bitsOf([...new Array<number>(12).fill(0), ...address.split('.').map(Number)]), IPV4_DEPTH + prefix];
  return [bitsOf(ipv6Bytes(address)), prefix];
}

/** The 16 bytes of an IPv6 address written with hex groups and at most one "::". */
function ipv6Bytes(address: string): number[] {
  const groups = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const [head, tail] = address.split('::');
  const front = groups(head);
  const back = groups(tail);
  const all = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((group) => [group >> 8, group & 0xff]);
}

function bitsOf(bytes: number[]): number[] {
  return bytes.flatMap((byte) => [7, 6, 5, 4, 3, 2, 1, 0].map((shift) => (byte >> shift) & 1));
}

/** A data-section field: control byte (type, size), extended type byte, size bytes, then the payload. */
function field(type: number, payload: Buffer, size = payload.length): Buffer {
  const head: number[] = [];
  const sizeBits = size < 29 ? size : size < 285 ? 29 : size < 65821 ? 30 : 31;
  head.push(((type > 7 ? 0 : type) << 5) | sizeBits);
  if (type > 7) head.push(type - 7);
  if (sizeBits === 29) head.push(size - 29);
  if (sizeBits === 30) head.push((size - 285) >> 8, (size - 285) & 0xff);
  if (sizeBits === 31) head.push((size - 65821) >> 16, ((size - 65821) >> 8) & 0xff, (size - 65821) & 0xff);
  return Buffer.concat([Buffer.from(head), payload]);
}

function string(value: string): Buffer {
  return field(STRING, Buffer.from(value, 'utf8'));
}

/** An unsigned integer in as few big-endian bytes as it needs (zero takes none). */
function uint(type: number, value: number): Buffer {
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return field(type, Buffer.from(bytes));
}

function map(entries: { [key: string]: Buffer }): Buffer {
  const pairs = Object.entries(entries).flatMap(([key, value]) => [string(key), value]);
  return field(MAP, Buffer.concat(pairs), pairs.length / 2);
}

function array(items: Buffer[]): Buffer {
  return field(ARRAY, Buffer.concat(items), items.length);
}
