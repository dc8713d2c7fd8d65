/**
 * A job failure that retrying cannot fix: the history says failed at once, without the
 * remaining attempts.
 */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/** A job type whose real work arrives in a later issue: visible as failed, never a silent success. */
export class NotImplementedJobError extends PermanentJobError {
  constructor(jobType: string) {
    super(`${jobType} is not implemented yet`);
    this.name = 'NotImplementedJobError';
  }
}
