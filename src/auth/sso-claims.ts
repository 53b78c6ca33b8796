import { USER_NAME, USER_NAME_RULE, type Config } from '../config.ts';

/** Who the provider vouched for, as kurz sees them: the input of `Access.signOn`. */
export interface SsoIdentity {
  /** The kurz user name (the `oidcUserClaim` claim's value). */
  name: string;
  email: string | null;
  /** True when the `oidcAdminClaim` claim is, or holds, `oidcAdminValue`. */
  admin: boolean;
}

export type SsoClaimSettings = Pick<Config, 'oidcUserClaim' | 'oidcAdminClaim' | 'oidcAdminValue'>;

/**
 * The kurz identity of an ID token's validated claims, or why there is none: the user-name claim missing,
 * not a string, or not a user name kurz accepts. Pure: the claims were checked by openid-client before.
 */
export function identityOf(
  claims: Readonly<Record<string, unknown>>,
  settings: SsoClaimSettings,
): { identity: SsoIdentity } | { refused: string } {
  const raw = claims[settings.oidcUserClaim];
  if (raw === undefined || raw === null || raw === '')
    return {
      refused: `the provider sent no "${settings.oidcUserClaim}" claim to name the user (oidcUserClaim); ask for the scope that carries it`,
    };
  if (typeof raw !== 'string') return { refused: `the "${settings.oidcUserClaim}" claim is not a string, so it cannot be a user name` };
  const name = raw.trim();
  if (!USER_NAME.test(name))
    return { refused: `the user name ${JSON.stringify(raw)} is not one kurz accepts: it must be ${USER_NAME_RULE}` };
  const email = typeof claims['email'] === 'string' && claims['email'] !== '' ? claims['email'] : null;
  let admin = false;
  if (settings.oidcAdminClaim !== '') {
    const value = claims[settings.oidcAdminClaim];
    admin = Array.isArray(value) ? value.includes(settings.oidcAdminValue) : value === settings.oidcAdminValue;
  }
  return { identity: { name, email, admin } };
}
