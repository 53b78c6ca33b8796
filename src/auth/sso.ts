import * as oidc from 'openid-client';
import { LRUCache } from 'lru-cache';
import { isLoopbackHost, type Config } from '../config.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import { identityOf, type SsoIdentity } from './sso-claims.ts';

/** How long a sign-on may take at the provider: the flow cookie's life. */
export const FLOW_MAX_AGE = 10 * 60_000;
/** A failed discovery is tried again at most this often (on the next sign-on, or the timer). */
const RETRY_EVERY = 30_000;
/** The path the provider sends the browser back to, under publicUrl: what is registered there. */
export const CALLBACK_PATH = '/login/sso/callback';

export interface SsoDeps {
  config: Pick<
    Config,
    'publicUrl' | 'oidcIssuer' | 'oidcClientId' | 'oidcClientSecret' | 'oidcScopes' | 'oidcUserClaim' | 'oidcAdminClaim' | 'oidcAdminValue'
  >;
  now: () => number;
  log: Logger;
}

/** What the flow cookie holds between the start and the callback: its checks, and where to go after. */
interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  /** When the flow started (ms): the cookie is refused after FLOW_MAX_AGE, whatever the browser kept. */
  at: number;
}

/** A finished sign-on: who it is, and where on kurz the browser goes next. */
export interface SignedOn {
  identity: SsoIdentity;
  next: string;
}

export type SingleSignOn = ReturnType<typeof singleSignOn>;

/**
 * OpenID Connect single sign-on with openid-client: discovery (cached; a failure logged and tried again),
 * the authorization code flow with PKCE (S256), state and nonce, and the callback's checks, which
 * openid-client makes (ID token signature, iss, aud, exp, nonce). Undefined when oidcIssuer is empty.
 * The caller keeps the flow in a signed cookie (`start`'s `flow`) and hands it back to `finish`.
 */
export function singleSignOn({ config, now, log }: SsoDeps) {
  const issuer = new URL(config.oidcIssuer);
  const redirectUri = `${config.publicUrl}${CALLBACK_PATH}`;
  let configuration: oidc.Configuration | undefined;
  let discovering: Promise<oidc.Configuration | undefined> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  let lastProblem = '';
  // States of finished flows, so that a replayed callback is named as such (the provider refuses the code too).
  const finished = new LRUCache<string, true>({ max: 10_000, ttl: FLOW_MAX_AGE, perf: { now } });

  /** The provider's configuration, discovered once; undefined (logged) while it cannot be had. */
  function discover(): Promise<oidc.Configuration | undefined> {
    if (configuration) return Promise.resolve(configuration);
    if (discovering) return discovering;
    if (now() - failedAt < RETRY_EVERY) return Promise.resolve(undefined);
    discovering = oidc
      .discovery(issuer, config.oidcClientId, config.oidcClientSecret || { token_endpoint_auth_method: 'none' }, undefined, {
        timeout: 10,
        // openid-client refuses plain http; config.ts lets it through only for a provider on this machine.
        ...(issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname) ? { execute: [oidc.allowInsecureRequests] } : {}),
      })
      .then(
        (found) => {
          configuration = found;
          log.info('single sign-on ready', { issuer: config.oidcIssuer });
          return found;
        },
        (err: unknown) => {
          failedAt = now();
          lastProblem = err instanceof Error ? err.message : String(err);
          log.warn("single sign-on: the provider's discovery document could not be read; tried again on the next sign-on", {
            issuer: config.oidcIssuer,
            error: lastProblem,
          });
          return undefined;
        },
      )
      .finally(() => {
        discovering = undefined;
      });
    return discovering;
  }

  async function ready(): Promise<oidc.Configuration> {
    const found = await discover();
    if (!found)
      throw new AppError(
        'unavailable',
        `single sign-on is not available: the provider at ${config.oidcIssuer} could not be reached (${lastProblem || 'still trying'}); try again in a minute, or log in with the password`,
      );
    return found;
  }

  /**
   * The ID token's claims, completed from the UserInfo endpoint when the ones kurz reads are not in it
   * (Authelia, for one, puts only a few claims in the ID token). openid-client checks that the UserInfo
   * answer is about the same subject; the ID token's own claims win.
   */
  async function withUserInfo(found: oidc.Configuration, claims: oidc.IDToken, accessToken: string): Promise<Record<string, unknown>> {
    const wanted = [config.oidcUserClaim, ...(config.oidcAdminClaim ? [config.oidcAdminClaim] : [])];
    if (wanted.every((name) => claims[name] !== undefined) || !found.serverMetadata().userinfo_endpoint) return claims;
    try {
      return { ...(await oidc.fetchUserInfo(found, accessToken, claims.sub)), ...claims };
    } catch (err) {
      throw grantError(err);
    }
  }

  return {
    /** The provider's host, for the login page's button. */
    providerName: issuer.host,
    redirectUri,
    /** Starts discovery now (at start-up), without waiting: a provider that is down only logs a warning. */
    warmUp(): void {
      void discover();
    },

    /**
     * The provider's authorization URL to send the browser to, and the flow to keep in its cookie.
     * Throws AppError('unavailable') while the provider's configuration cannot be read.
     */
    async start(next: string): Promise<{ url: string; flow: string }> {
      const found = await ready();
      const flow: Flow = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), next, at: now() };
      const url = oidc.buildAuthorizationUrl(found, {
        redirect_uri: redirectUri,
        scope: config.oidcScopes,
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      });
      return { url: url.href, flow: Buffer.from(JSON.stringify(flow)).toString('base64url') };
    },

    /**
     * Checks the provider's answer (`query`, the callback's query string) against the flow cookie and
     * redeems the code; returns who signed on and where to go next. Throws AppError, never a 500: 400 for a
     * missing, expired, replayed or mismatched flow, 403 for the provider's refusal or claims kurz cannot
     * use, 503 when the provider cannot be reached to redeem the code.
     */
    async finish(query: string, flowCookie: string | undefined): Promise<SignedOn> {
      const params = new URLSearchParams(query);
      const error = params.get('error');
      if (error !== null) {
        const description = params.get('error_description');
        throw new AppError('forbidden', `the provider refused the sign-on: ${error}${description ? ` (${description})` : ''}`);
      }
      const flow = flowCookie === undefined ? undefined : parseFlow(flowCookie);
      if (!flow)
        throw new AppError(
          'invalid',
          'this sign-on was not started in this browser, or its cookie is gone (cookies blocked?); start again from the login page',
        );
      if (now() - flow.at > FLOW_MAX_AGE)
        throw new AppError('invalid', 'this sign-on took longer than 10 minutes and has expired; start again');
      if (finished.has(flow.state)) throw new AppError('invalid', 'this sign-on was finished already (a replayed callback); start again');
      if (params.get('state') !== flow.state)
        throw new AppError('invalid', "the sign-on's state does not match the one this browser started; start again from the login page");
      const found = await ready();
      finished.set(flow.state, true);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(found, new URL(`${redirectUri}?${params.toString()}`), {
          pkceCodeVerifier: flow.verifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        throw grantError(err);
      }
      const idClaims = tokens.claims();
      if (!idClaims) throw new AppError('forbidden', 'the provider sent no ID token');
      const mapped = identityOf(await withUserInfo(found, idClaims, tokens.access_token), config);
      if ('refused' in mapped) throw new AppError('forbidden', mapped.refused);
      return { identity: mapped.identity, next: flow.next };
    },
  };
}

/** The flow a cookie holds, or undefined if it holds none. */
function parseFlow(cookie: string): Flow | undefined {
  try {
    const flow = JSON.parse(Buffer.from(cookie, 'base64url').toString()) as Partial<Flow>;
    const strings = [flow.state, flow.nonce, flow.verifier, flow.next].every((v) => typeof v === 'string');
    return strings && typeof flow.at === 'number' ? (flow as Flow) : undefined;
  } catch {
    return undefined;
  }
}

/** The client error for a failed code exchange: the provider's refusal or a failed check, said plainly. */
function grantError(err: unknown): AppError {
  if (err instanceof oidc.ResponseBodyError)
    return new AppError(
      'forbidden',
      `the provider refused the code: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`,
    );
  if (err instanceof oidc.AuthorizationResponseError)
    return new AppError(
      'forbidden',
      `the provider refused the sign-on: ${err.error}${err.error_description ? ` (${err.error_description})` : ''}`,
    );
  if (err instanceof TypeError || (err instanceof Error && err.name === 'TimeoutError'))
    return new AppError('unavailable', `the provider could not be reached to finish the sign-on: ${err.message}`);
  // openid-client's message is general ("unexpected JWT claim value encountered"); the cause it wraps
  // names what failed (the ID token's nonce, iss, aud…).
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  return new AppError('invalid', `the provider's answer failed kurz's checks: ${message}`);
}
