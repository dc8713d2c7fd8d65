import type { ErrorRequestHandler } from 'express';
import { AppError, coerceError, type ErrorCode, type Logger } from '@inntak/core';

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
};

const INTERNAL = { status: 500, text: 'Intern feil' };

export function errorResponse(error: AppError): { status: number; body: { error: string } } {
  const entry = ERROR_TABLE[error.code];
  // Detail is appended only for client errors, where it names what to fix (e.g. the bad field).
  const text = error.detail && entry.status < 500 ? `${entry.text}: ${error.detail}` : entry.text;
  return { status: entry.status, body: { error: text } };
}

/** Express's last middleware: every failure leaves as `{ "error": text }`. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (thrown, req, res, _next) => {
    const appError = toAppError(thrown);
    if (!appError) {
      const err = coerceError(thrown);
      logger.error('unhandled error', { method: req.method, path: req.path, error: err.message, stack: err.stack });
      res.status(INTERNAL.status).json({ error: INTERNAL.text });
      return;
    }
    const { status, body } = errorResponse(appError);
    if (status >= 500) {
      const cause = appError.cause ? coerceError(appError.cause) : undefined;
      logger.error(body.error, { method: req.method, path: req.path, code: appError.code, cause: cause?.message });
    }
    res.status(status).json(body);
  };
}

/** body-parser's own errors (too large, bad encoding) carry a `type`; map them to ours. */
function toAppError(thrown: unknown): AppError | undefined {
  if (thrown instanceof AppError) return thrown;
  const type = (thrown as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new AppError('body_too_large');
  if (type === 'entity.parse.failed' || type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new AppError('invalid_json');
  }
  return undefined;
}
