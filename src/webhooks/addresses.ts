import { BlockList, isIP } from 'node:net';

/**
 * The ranges a webhook may not reach unless webhookAllowPrivate says so: this machine, the networks behind
 * it and the cloud's metadata service. Each named, for the refusal's message.
 */
const RANGES: ReadonlyArray<readonly [name: string, address: string, prefix: number, family: 'ipv4' | 'ipv6']> = [
  ['this network', '0.0.0.0', 8, 'ipv4'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['shared (CGNAT)', '100.64.0.0', 10, 'ipv4'],
  ['link-local (cloud metadata)', '169.254.0.0', 16, 'ipv4'],
  ['IETF protocol assignments', '192.0.0.0', 24, 'ipv4'],
  ['benchmarking', '198.18.0.0', 15, 'ipv4'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['unique-local', 'fc00::', 7, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  ['NAT64', '64:ff9b::', 96, 'ipv6'],
];

const LISTS = RANGES.map(([name, address, prefix, family]) => {
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return { name, list };
});

/**
 * The name of the range `address` (an IP address) is in, when a webhook may not reach it; undefined when it
 * may. An IPv4-mapped IPv6 address is judged as its IPv4 address; what is not an IP address is refused.
 */
export function refusedRange(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  const ip = mappedIpv4(bare) ?? bare;
  const kind = isIP(ip);
  if (kind === 0) return 'not an IP address';
  const family = kind === 4 ? 'ipv4' : 'ipv6';
  return LISTS.find(({ list }) => list.check(ip, family))?.name;
}

/** The IPv4 address an IPv4-mapped IPv6 address stands for, in either spelling (`::ffff:127.0.0.1`, `::ffff:7f00:1`). */
function mappedIpv4(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted !== undefined) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}
