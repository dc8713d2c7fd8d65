import { z } from 'zod';
import { ACCESS_LEVELS } from '@inntak/access';
import { VISIBILITIES } from '@inntak/graph';

/** Shapes shared by several routes; each route's own request and response sit beside it. */
export const Id = z.uuid();
export const Visibility = z.enum(VISIBILITIES);
export const AccessLevel = z.enum(ACCESS_LEVELS);
export const TemplateId = z.string().min(1).max(100);
export const JsonObject = z.record(z.string(), z.unknown());
export const Timestamp = z.iso.datetime();
