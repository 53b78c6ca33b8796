/** FNV-1a (32 bits) of `text` from `from` on, over its UTF-16 units: a fast hash that allocates nothing, for tables and filters (not for anything an attacker must not steer). */
export function fnv1a(text: string, from = 0): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}
