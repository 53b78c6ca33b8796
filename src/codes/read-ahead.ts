import type { CodeGenerator } from './code-generator.ts';

/**
 * A generator that, asked for the code of an id it has not computed, computes the codes of the next
 * `ahead` ids together: links take consecutive ids, and FF1 costs one AES call per round however many
 * codes it computes (see `codesFor`).
 */
export function readingAhead(codes: CodeGenerator, ahead: number): CodeGenerator {
  let first = 0;
  let computed: string[] = [];
  return {
    ...codes,
    codeFor(id) {
      const known = computed[id - first];
      if (known !== undefined) return known;
      computed = codes.codesFor(id, ahead);
      first = id;
      return computed[0]!;
    },
  };
}
