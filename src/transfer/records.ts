import type { LinkRecord } from '../links/link.ts';
import type { RuleJson } from '../rules/rule.ts';

/** A record read from an import file, with the line it starts on and its redirect rules as the file gives them (checked on import). */
export interface NumberedRecord {
  line: number;
  record: LinkRecord;
  rules: unknown;
  /** The file gives no code: one is generated (and `record.code` is ''). */
  generated?: boolean;
  /** The visits another shortener logged (YOURLS' yourls_log): they go into the link's figures, not its count. */
  visits?: PastVisit[];
}

/** A visit another shortener logged, as kurz keeps it: when, the referrer's host and the country (null: unknown). */
export interface PastVisit {
  at: number;
  referrer: string | null;
  country: string | null;
}

/** A link as an export carries it: its record and its redirect rules as the API sets them, null for none. */
export type ExportedLink = LinkRecord & { rules: RuleJson[] | null };
