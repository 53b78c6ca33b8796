import type { LinkRecord } from '../links/link.ts';
import type { RuleJson } from '../rules/rule.ts';

/** A record read from an import file, with the line it starts on and its redirect rules as the file gives them (checked on import). */
export interface NumberedRecord {
  line: number;
  record: LinkRecord;
  rules: unknown;
  /** The file gives no code: one is generated (and `record.code` is ''). */
  generated?: boolean;
}

/** A link as an export carries it: its record and its redirect rules as the API sets them, null for none. */
export type ExportedLink = LinkRecord & { rules: RuleJson[] | null };
