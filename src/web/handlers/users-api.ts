import type { Context } from 'koa';
import * as z from 'zod';
import { ROLES } from '../../auth/actor.ts';
import { userJson } from '../../auth/user-json.ts';
import { USER_STATES } from '../../auth/user.ts';
import type { WebServices } from '../../context.ts';
import { parseBody, ruled } from '../../core/request-schema.ts';
import { readBody } from '../../http/body.ts';
import { sendJson } from '../../http/respond.ts';
import { actorOf } from '../session.ts';

const USERS_PATH = '/api/v1/users';

/** Passes a value on as it came: the use case (auth/users.ts) checks it. */
const asGiven = (value: unknown): unknown => value;

/** POST /api/v1/users: a new user; they set a password with the one-time link in the answer. */
export const USER_CREATE = z.strictObject({
  name: ruled(
    z.string().describe('What they log in with: 1-64 letters, digits, ".", "_", "@" or "-"; unique whatever its case'),
    asGiven,
  ).nonoptional({
    error: 'name is required',
  }),
  email: ruled(z.string().nullable().describe('Optional; kurz sends no mail'), asGiven),
  role: ruled(z.enum(ROLES).describe('admin: everything; member (the default): their own links, keys and figures'), asGiven),
});

/** PATCH /api/v1/users/NAME: a new role or state (or both). */
export const USER_EDIT = z
  .strictObject({
    role: ruled(z.enum(ROLES), asGiven),
    state: ruled(z.enum(USER_STATES).describe('disabled: no login, no keys, sessions ended; their links stay'), asGiven),
  })
  .refine((fields) => Object.keys(fields).length > 0, { error: 'give role or state' })
  .meta({ minProperties: 1 });

/** A user as the API shows them (auth/user-json.ts). */
export const USER_JSON = z.strictObject({
  name: z.string(),
  email: z.string().nullable(),
  role: z.enum(ROLES),
  state: z.enum(USER_STATES),
  createdAt: z.string().meta({ format: 'date-time' }),
  hasPassword: z.boolean(),
  inviteExpiresAt: z.string().nullable().meta({ format: 'date-time' }).describe('Until when the open one-time link works; null: none open'),
  links: z.int().min(0).optional().describe('Live links they own (in lists)'),
});

/** POST /api/v1/users/NAME/handover: who gets every link of theirs. */
export const USER_HANDOVER = z.strictObject({
  to: ruled(z.string().describe("The user who gets every link of NAME's, deleted ones too (their figures go along)"), asGiven).nonoptional({
    error: 'to is required: the name of the user who gets the links',
  }),
});

/** What a hand-over did. */
export const HANDOVER_JSON = z.strictObject({
  from: z.string().nullable(),
  to: z.string().nullable(),
  links: z.int().min(0).describe('Links handed over, deleted ones included'),
});

/** A user with the one-time link they set a password with (shown once: kurz keeps its hash alone). */
export const USER_INVITATION = USER_JSON.extend({ link: z.string().meta({ format: 'uri' }) });

/** /api/v1/users: the people on this kurz; every route is an admin's. */
export function usersApiHandlers(web: WebServices) {
  const nameOf = (ctx: Context): string => ctx.params['name'] ?? '';

  return {
    async listUsers(ctx: Context): Promise<void> {
      sendJson(ctx.res, 200, { users: (await web.users.listUsers(actorOf(ctx))).map(userJson) });
    },

    /** 201 with the user and their one-time link; 409 for a taken name. */
    async addUser(ctx: Context): Promise<void> {
      const fields = parseBody(USER_CREATE, await readBody(ctx.req, ['json']));
      const invitation = await web.users.addUser(actorOf(ctx), fields);
      ctx.res.setHeader('Location', `${USERS_PATH}/${encodeURIComponent(invitation.user.name)}`);
      sendJson(ctx.res, 201, { ...userJson(invitation.user), link: invitation.link });
    },

    async showUser(ctx: Context): Promise<void> {
      sendJson(ctx.res, 200, userJson(await web.users.user(actorOf(ctx), nameOf(ctx))));
    },

    /** Sets the role and/or the state given; refuses to leave no active admin. */
    async editUser(ctx: Context): Promise<void> {
      const { role, state } = parseBody(USER_EDIT, await readBody(ctx.req, ['json']));
      const actor = actorOf(ctx);
      let user = await web.users.user(actor, nameOf(ctx));
      if (role !== undefined) user = await web.users.setRole(actor, user.name, role);
      if (state !== undefined) user = await web.users.setState(actor, user.name, state);
      sendJson(ctx.res, 200, userJson(user));
    },

    /** Hands every link of the user to another (`to`); 200 with how many. */
    async handOverLinks(ctx: Context): Promise<void> {
      const { to } = parseBody(USER_HANDOVER, await readBody(ctx.req, ['json']));
      const actor = actorOf(ctx);
      const from = await web.users.user(actor, nameOf(ctx));
      sendJson(ctx.res, 200, await web.links.handOverAll(actor, from.id, to));
    },

    /** A new one-time link to set a password (24 h); the old password works until it is used. */
    async resetPassword(ctx: Context): Promise<void> {
      const invitation = await web.users.resetPassword(actorOf(ctx), nameOf(ctx));
      sendJson(ctx.res, 200, { ...userJson(invitation.user), link: invitation.link });
    },
  };
}
