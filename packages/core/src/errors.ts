/**
 * Every failure a caller can see has a code here. The HTTP adapter owns the one table that maps
 * codes to status and text (apps/api/src/errors.ts); domain code only throws AppError.
 */
export type ErrorCode =
  | 'webhook_not_found'
  | 'token_lookup_failed'
  | 'node_insert_failed'
  | 'edge_insert_failed'
  | 'invalid_json'
  | 'body_too_large'
  | 'json_too_deep'
  | 'unreadable_body'
  | 'unsupported_encoding'
  | 'method_not_allowed'
  | 'busy'
  | 'missing_authorization'
  | 'invalid_token'
  | 'unknown_identity'
  | 'forbidden'
  | 'not_found'
  | 'invalid_input'
  | 'conflict'
  | 'unknown_template'
  | 'job_wrong_state'
  | 'too_many_requests'
  | 'invalid_signature'
  | 'tts_text_too_long'
  | 'tts_audio_too_long'
  | 'tts_jobs_busy'
  | 'orchestration_runs_busy'
  | 'media_quota_exceeded'
  | 'media_type_unsupported'
  | 'media_too_large'
  | 'media_unreadable'
  | 'media_audio_out_of_bounds'
  | 'media_link_expired'
  | 'storage_full'
  | 'rerun_other_actor'
  | 'secret_other_actor'
  | 'input_other_actor';

export class AppError extends Error {
  readonly code: ErrorCode;
  override readonly cause?: unknown;
  /** Extra, caller-safe detail (e.g. the name of a bad field). */
  readonly detail?: string;

  constructor(code: ErrorCode, options: { cause?: unknown; detail?: string; message?: string } = {}) {
    super(options.message ?? options.detail ?? code);
    this.name = 'AppError';
    this.code = code;
    this.cause = options.cause;
    this.detail = options.detail;
  }
}

/** Normalise anything thrown into an Error, once, at the edge (like graphile-worker's coerceError). */
export function coerceError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown;
  return new Error(typeof thrown === 'string' ? thrown : JSON.stringify(thrown));
}
