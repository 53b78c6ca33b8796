// Shlink's published SDK (@shlinkio/shlink-js-sdk), typed from its own contract. Its .d.ts files import their
// neighbours without file extensions, which TypeScript's NodeNext resolution cannot follow; its types.d.ts
// imports nothing, so the client's methods are written here with those types (as its ShlinkApiClient.d.ts has them).
import * as sdk from '@shlinkio/shlink-js-sdk';
import * as contract from '@shlinkio/shlink-js-sdk/api-contract';
import * as fetchClient from '@shlinkio/shlink-js-sdk/fetch';
import * as nodeClient from '@shlinkio/shlink-js-sdk/node';
import type * as T from '../../node_modules/@shlinkio/shlink-js-sdk/dist/api-contract/types.d.ts';

export type * from '../../node_modules/@shlinkio/shlink-js-sdk/dist/api-contract/types.d.ts';

export interface ShlinkApiClient {
  listShortUrls(params?: T.ShlinkShortUrlsListParams): Promise<T.ShlinkShortUrlsList>;
  createShortUrl(data: T.ShlinkCreateShortUrlData): Promise<T.ShlinkShortUrl>;
  getShortUrl(id: T.ShlinkShortUrlIdentifier): Promise<T.ShlinkShortUrl>;
  deleteShortUrl(id: T.ShlinkShortUrlIdentifier): Promise<void>;
  updateShortUrl(id: T.ShlinkShortUrlIdentifier, data: T.ShlinkEditShortUrlData): Promise<T.ShlinkShortUrl>;
  getShortUrlRedirectRules(id: T.ShlinkShortUrlIdentifier): Promise<T.ShlinkRedirectRulesList>;
  setShortUrlRedirectRules(id: T.ShlinkShortUrlIdentifier, data: T.ShlinkSetRedirectRulesData): Promise<T.ShlinkRedirectRulesList>;
  getVisitsOverview(): Promise<T.ShlinkVisitsOverview>;
  getShortUrlVisits(id: T.ShlinkShortUrlIdentifier, params?: T.ShlinkVisitsParams): Promise<T.ShlinkVisitsList>;
  getTagVisits(tag: string, params?: T.ShlinkWithDomainVisitsParams): Promise<T.ShlinkVisitsList>;
  getDomainVisits(domain: string, params?: T.ShlinkVisitsParams): Promise<T.ShlinkVisitsList>;
  getOrphanVisits(params?: T.ShlinkOrphanVisitsParams): Promise<T.ShlinkVisitsList>;
  getNonOrphanVisits(params?: T.ShlinkWithDomainVisitsParams): Promise<T.ShlinkVisitsList>;
  deleteOrphanVisits(): Promise<T.ShlinkDeleteVisitsResult>;
  listTags(): Promise<T.ShlinkTagsList>;
  tagsStats(): Promise<T.ShlinkTagsStatsList>;
  deleteTags(tags: string[]): Promise<{ tags: string[] }>;
  editTag(renaming: T.ShlinkRenaming): Promise<T.ShlinkRenaming>;
  listDomains(): Promise<T.ShlinkDomainsList>;
  editDomainRedirects(redirects: T.ShlinkEditDomainRedirects): Promise<T.ShlinkDomainRedirects>;
  health(options?: { domain?: string }): Promise<T.ShlinkHealth>;
  mercureInfo(): Promise<T.ShlinkMercureInfo>;
}

type HttpClient = object;
const api = sdk as unknown as { ShlinkApiClient: new (http: HttpClient, server: { baseUrl: string; apiKey: string }) => ShlinkApiClient };
const FetchHttpClient = (fetchClient as unknown as { FetchHttpClient: new () => HttpClient }).FetchHttpClient;
const NodeHttpClient = (nodeClient as unknown as { NodeHttpClient: new () => HttpClient }).NodeHttpClient;

/** The SDK's error types, by its names (INVALID_ARGUMENT, INVALID_SHORTCODE, …). */
export const ErrorType = (contract as unknown as { ErrorType: Readonly<Record<string, string>> }).ErrorType;

/** The SDK's client of the server at `baseUrl`, over fetch (as in a browser) or node:http. */
export function shlinkClient(baseUrl: string, apiKey: string, http: 'fetch' | 'node' = 'fetch'): ShlinkApiClient {
  return new api.ShlinkApiClient(http === 'fetch' ? new FetchHttpClient() : new NodeHttpClient(), { baseUrl, apiKey });
}
