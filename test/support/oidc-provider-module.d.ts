/** The little of oidc-provider 9 (which ships no types) that test/support/oidc-provider.ts uses. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(
      issuer: string,
      configuration: Record<string, unknown> & { findAccount?: (ctx: unknown, id: string) => Account | undefined },
    );
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
