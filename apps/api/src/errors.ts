import type { ErrorRequestHandler } from 'express';
import { AppError, coerceError, JSON_MAX_DEPTH, type ErrorCode, type Logger } from '@inntak/core';
import { requestLogger, routeOf } from './request-logging.js';
import { closeUnreadBody } from './unread-body.js';

/**
 * The one table from failure to HTTP answer. Texts marked (spec) are contract; keep them exact.
 */
const ERROR_TABLE: Record<ErrorCode, { status: number; text: string }> = {
  webhook_not_found: { status: 404, text: 'Ugyldig webhook-token' }, // spec
  token_lookup_failed: { status: 500, text: 'Databasefeil' }, // spec
  node_insert_failed: { status: 500, text: 'Databasefeil ved opprettelse av node' }, // spec
  edge_insert_failed: { status: 500, text: 'Databasefeil ved opprettelse av edge' }, // spec
  invalid_json: { status: 400, text: 'Ugyldig JSON i forespørselen' },
  body_too_large: { status: 413, text: 'Forespørselen er for stor' },
  json_too_deep: { status: 400, text: `JSON-en er nestet dypere enn ${JSON_MAX_DEPTH} nivåer` },
  unreadable_body: { status: 400, text: 'Forespørselen kunne ikke leses' },
  unsupported_encoding: { status: 415, text: 'Kodingen støttes ikke' },
  method_not_allowed: { status: 405, text: 'Metoden er ikke tillatt' },
  busy: { status: 503, text: 'Tjenesten er opptatt; prøv igjen om litt' },
  missing_authorization: { status: 401, text: 'Mangler Authorization-header' }, // spec
  invalid_token: { status: 401, text: 'Ugyldig token' }, // spec
  unknown_identity: { status: 401, text: 'Ukjent brukeridentitet' }, // spec
  forbidden: { status: 403, text: 'Ingen tilgang' },
  not_found: { status: 404, text: 'Finnes ikke' },
  invalid_input: { status: 400, text: 'Ugyldig forespørsel' },
  conflict: { status: 409, text: 'Konflikt' },
  unknown_template: { status: 400, text: 'Ukjent mal' },
  job_wrong_state: { status: 409, text: 'Jobben har feil status for dette' },
  too_many_requests: { status: 429, text: 'For mange samtidige forespørsler; prøv igjen straks' },
  invalid_signature: { status: 401, text: 'Ugyldig signatur' }, // issue 17
  tts_text_too_long: { status: 422, text: 'Teksten er for lang til opplesning' }, // issue 22
  tts_audio_too_long: { status: 422, text: 'Opplesningen ville blitt for lang' }, // issue 22
  tts_jobs_busy: { status: 429, text: 'Du har for mange opplesninger i kø; vent til en er ferdig' }, // issue 22
  orchestration_runs_busy: { status: 429, text: 'Du har for mange orkestreringskjøringer i kø; vent til en er ferdig' }, // issue 35
  media_quota_exceeded: { status: 409, text: 'Samlingen har ikke plass til flere medier' }, // issue 22
  media_type_unsupported: { status: 415, text: 'Filtypen støttes ikke' }, // issue 28
  media_too_large: { status: 413, text: 'Filen er for stor' }, // issue 28
  media_unreadable: { status: 422, text: 'Filen kunne ikke leses' }, // issue 28
  media_audio_out_of_bounds: { status: 422, text: 'Lyden er utenfor det tjenesten tar imot' }, // issue 35
  media_link_expired: { status: 403, text: 'Lenken er utløpt; be om en ny' }, // issue 25
  storage_full: { status: 507, text: 'Lagringsplassen er full; filen ble ikke lagret' }, // issue 38
  rerun_other_actor: { status: 409, text: 'Kjøringen ble gjort som en annen enn den orkestreringen nå kjører som; start en ny kjøring i stedet' }, // issue 35
  secret_other_actor: { status: 403, text: 'Bare den orkestreringen kjører som kan sette hemmelighetene; ta den over med update_orchestration først' }, // issue 35, found on the merged result
  input_other_actor: { status: 403, text: 'Bare den orkestreringen kjører som kan gi den input; ta den over med update_orchestration først' }, // issue 40's stop: a co-admin's input steered the creator's rights
};

const INTERNAL = { status: 500, text: 'Intern feil' };

export function errorResponse(error: AppError): { status: number; body: { error: string } } {
  const entry = ERROR_TABLE[error.code];
  // Detail is appended only for client errors, where it names what to fix (e.g. the bad field).
  const text = error.detail && entry.status < 500 ? `${entry.text}: ${error.detail}` : entry.text;
  return { status: entry.status, body: { error: text } };
}

/** Express's last middleware: every failure leaves as `{ "error": text }`. */
export function errorHandler(appLogger: Logger): ErrorRequestHandler {
  return (thrown, req, res, _next) => {
    const logger = requestLogger(res, appLogger);
    // Logs name the route pattern, never the path: a webhook path holds its token.
    const where = { method: req.method, route: routeOf(req) };
    const appError = toAppError(thrown);
    if (!appError) {
      const err = coerceError(thrown);
      logger.error('unhandled error', { ...where, error: err.message, stack: err.stack });
      res.locals.errorText = INTERNAL.text;
      res.status(INTERNAL.status).json({ error: INTERNAL.text });
      return;
    }
    const { status, body } = errorResponse(appError);
    if (status >= 500) {
      const cause = appError.cause ? coerceError(appError.cause) : undefined;
      logger.error(body.error, { ...where, code: appError.code, cause: cause?.message });
    }
    // A body left unread (refused before or while reading it) is not worth receiving: close
    // the connection after the answer instead of draining it.
    if (!req.complete && hasBody(req.headers)) closeUnreadBody(req, res);
    if (appError.code === 'method_not_allowed') res.setHeader('Allow', 'POST');
    if (appError.code === 'busy') res.setHeader('Retry-After', '1');
    // The database is away (and the spool could not take the delivery): a sender that retries waits a little.
    if (appError.code === 'token_lookup_failed' || appError.code === 'node_insert_failed' || appError.code === 'edge_insert_failed') res.setHeader('Retry-After', '5');
    if (appError.code === 'tts_jobs_busy' || appError.code === 'orchestration_runs_busy') res.setHeader('Retry-After', '10');
    // What was answered, for whoever records the request (the delivery log: webhook-intake.ts).
    res.locals.errorText = body.error;
    res.status(status).json(body);
  };
}

/**
 * Failures from outside our code. body-parser and the request stream mark theirs with an HTTP
 * status (and often a `type`): too large is 413, an unknown encoding 415, and every other one —
 * a body that does not inflate, a cut-off request, one a future parser refuses — is the
 * client's 400, never a 500.
 */
function toAppError(thrown: unknown): AppError | undefined {
  if (thrown instanceof AppError) return thrown;
  const { type, status, statusCode, encoding, charset, code } = (thrown ?? {}) as Record<string, unknown>;
  if (type === 'entity.too.large') return new AppError('body_too_large');
  if (type === 'entity.parse.failed') return new AppError('invalid_json');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    const what = typeof encoding === 'string' ? `Content-Encoding ${encoding}` : typeof charset === 'string' ? `charset ${charset}` : undefined;
    return new AppError('unsupported_encoding', { detail: what });
  }
  const httpStatus = typeof status === 'number' ? status : statusCode;
  if (typeof httpStatus === 'number' && httpStatus >= 400 && httpStatus < 500) {
    const zlib = typeof code === 'string' && code.startsWith('Z_');
    return new AppError('unreadable_body', { detail: zlib ? 'innholdet kunne ikke pakkes ut (Content-Encoding)' : undefined });
  }
  return undefined;
}

export function hasBody(headers: { 'transfer-encoding'?: string; 'content-length'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
