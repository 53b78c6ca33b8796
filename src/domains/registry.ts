import type { Actor } from '../auth/actor.ts';
import type { LinkAddress } from '../links/link.ts';
import { closedDomain, DEFAULT_DOMAIN, hostOfHeader, mayUse, normaliseHost, unknownDomain, type Domain } from './domain.ts';

/** Raw Host header values remembered with their domain; past this many the memory starts again. */
const MEMO_SIZE = 1024;

/**
 * Every domain, in this process's memory (they are few): loaded at start and again whenever the change log
 * says a domain changed (any process's `kurz domains`, API or page). It maps a request's Host to a domain
 * for the redirect, a host typed by a person to a domain id, and a link to its short URL.
 */
export class DomainRegistry {
  readonly #publicUrl: string;
  /** The publicUrl's host, which names the default domain. */
  readonly defaultHost: string;
  readonly #defaultScheme: string;
  #byId = new Map<number, Domain>();
  #byHost = new Map<string, number>();
  /** The ids of the users each limited domain is open to; a domain open to everyone has no entry. */
  #users = new Map<number, ReadonlySet<number>>();
  /** Raw Host header -> domain id, or -1 for a host kurz does not serve: a hot redirect does no string work. */
  #memo = new Map<string, number>();
  /** Counts the loads: whoever keeps something made from the domains makes it again when this changes. */
  version = 0;

  constructor(publicUrl: string, domains: readonly Domain[] = []) {
    const url = new URL(publicUrl);
    this.#publicUrl = publicUrl.replace(/\/+$/, '');
    this.defaultHost = hostOfHeader(url.host) ?? url.hostname;
    this.#defaultScheme = url.protocol.slice(0, -1);
    this.load(domains);
  }

  /** Takes the stored domains (the default one's row included, or not yet: the default exists regardless). */
  load(domains: readonly Domain[]): void {
    const byId = new Map<number, Domain>();
    const byHost = new Map<string, number>([[this.defaultHost, DEFAULT_DOMAIN]]);
    const users = new Map<number, ReadonlySet<number>>();
    const fallback: Domain = {
      id: 0,
      host: '',
      scheme: null,
      notFoundRedirect: null,
      rootRedirect: null,
      users: null,
      createdAt: new Date(0),
    };
    byId.set(DEFAULT_DOMAIN, fallback);
    for (const domain of domains) {
      byId.set(domain.id, domain);
      if (domain.id !== DEFAULT_DOMAIN) byHost.set(domain.host, domain.id);
      if (domain.users) users.set(domain.id, new Set(domain.users.map((u) => u.id)));
    }
    this.#byId = byId;
    this.#byHost = byHost;
    this.#users = users;
    this.#memo = new Map();
    this.version++;
  }

  /**
   * The domain a request's Host header names (lower-cased, port and trailing dot removed, IDN as punycode);
   * undefined for a host kurz does not serve (the caller decides: the default domain, or 421).
   */
  domainOfHost(header: string | undefined): number | undefined {
    if (header === undefined) return undefined;
    let id = this.#memo.get(header);
    if (id === undefined) {
      const host = hostOfHeader(header);
      id = host === undefined ? -1 : (this.#byHost.get(host) ?? -1);
      if (this.#memo.size >= MEMO_SIZE) this.#memo.clear();
      this.#memo.set(header, id);
    }
    return id === -1 ? undefined : id;
  }

  /**
   * The domain a request was sent to, by its Host header (read from the raw headers, so that a redirect does
   * not make Node build the headers object); undefined for a host kurz does not serve.
   */
  domainOfRequest(rawHeaders: readonly string[]): number | undefined {
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      if (name.length === 4 && name.toLowerCase() === 'host') return this.domainOfHost(rawHeaders[i + 1]);
    }
    return undefined;
  }

  /**
   * The id of the domain a person named (a host as typed: any case, a trailing dot, IDN); the default domain
   * when nothing was given. Throws AppError('invalid', …, field) for a bad or unknown host.
   */
  idOf(input: unknown, field = 'domain'): number {
    if (input === undefined || input === null || input === '') return DEFAULT_DOMAIN;
    const host = normaliseHost(input, field);
    const id = this.idOfHost(host);
    if (id === undefined) throw unknownDomain(host, field);
    return id;
  }

  /** The id of the domain with this (normalised) host; the publicUrl's host is the default domain's. */
  idOfHost(host: string): number | undefined {
    return this.#byHost.get(host);
  }

  /** The domain with this id; undefined once removed. */
  byId(id: number): Domain | undefined {
    return this.#byId.get(id);
  }

  /** The host of a domain as people see it: the default domain's is the publicUrl's. */
  hostOf(id: number): string {
    return id === DEFAULT_DOMAIN ? this.defaultHost : (this.#byId.get(id)?.host ?? this.defaultHost);
  }

  /** Every domain, the default first (with its host filled in). */
  all(): Domain[] {
    return [...this.#byId.values()].map((d) => (d.id === DEFAULT_DOMAIN ? { ...d, host: this.defaultHost } : d));
  }

  /** Whether the actor may create links on the domain, or move one to it (domain.ts's `mayUse`): no query, one Map lookup. */
  mayUse(actor: Actor, id: number): boolean {
    return mayUse(actor, this.#users.get(id));
  }

  /** Throws AppError('forbidden', …, field) naming the domain when the actor may not create links on it. */
  refuseClosed(actor: Actor, id: number, field = 'domain'): void {
    if (!this.mayUse(actor, id)) throw closedDomain(this.hostOf(id), field);
  }

  /** The domains the actor may create links on, the default first (with its host filled in). */
  usableBy(actor: Actor): Domain[] {
    return this.all().filter((d) => this.mayUse(actor, d.id));
  }

  /** More than the default domain: the pages then offer a choice. */
  several(): boolean {
    return this.#byId.size > 1;
  }

  /** Where the domain's short URLs start: its scheme (else the publicUrl's) and host; the default domain's is the publicUrl. */
  baseOf(id: number): string {
    const domain = this.#byId.get(id);
    if (id === DEFAULT_DOMAIN || domain === undefined) return this.#publicUrl;
    return `${domain.scheme ?? this.#defaultScheme}://${domain.host}`;
  }

  /** A link's short URL, with its own domain. */
  shortUrl(link: LinkAddress): string {
    return `${this.baseOf(link.domain)}/${link.code}`;
  }
}
