import type { AuditSubject } from '../audit/entry.ts';
import type { DomainRegistry } from '../domains/registry.ts';
import type { Link } from './link.ts';

/** A link as the audit trail names it: its id, and its short URL without the scheme (the label outlives an edit). */
export function linkSubject(link: Pick<Link, 'id' | 'domain' | 'code'>, domains: Pick<DomainRegistry, 'shortUrl'>): AuditSubject {
  return { kind: 'link', id: link.id, label: domains.shortUrl(link).replace(/^https?:\/\//, '') };
}
