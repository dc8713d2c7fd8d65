import { OPERATOR, isAccessLevel } from '@inntak/access';
import { CliError, id, optional, required, requireKind, UsageError, type CommandSpec } from '../command-line.js';

export const personAdd: CommandSpec = {
  name: 'person add',
  args: '--subject S [--issuer I] [--name N] [--admin]',
  summary: 'a person node and its login identity',
  options: {
    subject: { type: 'string', help: "the identity's `sub` claim" },
    issuer: { type: 'string', help: 'the issuer that must have signed it (default: any issuer)' },
    name: { type: 'string', help: "the person's display name" },
    admin: { type: 'boolean', help: 'make the person a system administrator' },
  },
  async run(options, { services }) {
    const subject = required(options, 'subject');
    const issuer = optional(options, 'issuer');
    if (issuer !== undefined && issuer.trim() === '') throw new UsageError('--issuer kan ikke være tom (utelat den for å godta alle utstedere)');
    const existing = await services.personOfIdentity({ issuer: issuer ?? '', subject });
    if (existing) throw new CliError(`det finnes allerede en person med --subject ${subject}${issuer ? ` og --issuer ${issuer}` : ''} (${existing})`);
    return services.createPerson({ subject, issuer, name: optional(options, 'name'), admin: options.admin === true });
  },
};

export const collectionAdd: CommandSpec = {
  name: 'collection add',
  args: '--title T --owner PERSON_ID',
  summary: 'a collection; the owner gets an owner access row',
  options: { title: { type: 'string', help: "the collection's title" }, owner: id('the person who owns it') },
  async run(options, context) {
    const title = required(options, 'title');
    const ownerId = await requireKind(context, options, 'owner', 'person');
    return context.services.createCollection({ title, ownerId });
  },
};

export const memberAdd: CommandSpec = {
  name: 'member add',
  args: '--collection ID --person PERSON_ID [--access reader|member|admin|owner]',
  summary: 'grant a person a level on a collection and everything in it (default member)',
  options: {
    collection: id('the collection'),
    person: id('the person'),
    access: { type: 'string', help: 'reader, member (default), admin or owner' },
  },
  async run(options, context) {
    const access = optional(options, 'access') ?? 'member';
    if (!isAccessLevel(access)) throw new UsageError(`--access må være reader, member, admin eller owner; fikk «${access}»`);
    const subjectId = await requireKind(context, options, 'person', 'person');
    const objectId = await requireKind(context, options, 'collection', 'collection');
    const granted = await context.services.grantAccess(OPERATOR, { subject_id: subjectId, object_id: objectId, access });
    return { subject_id: subjectId, object_id: objectId, access, edge_id: granted.edge_id };
  },
};
