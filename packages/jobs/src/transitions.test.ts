import { describe, expect, it } from '@jest/globals';
import { AppError } from '@inntak/core';
import { assertCancellable, assertRetryable, canTransition } from './transitions.js';

describe('job transitions', () => {
  it('a job moves from queued to running to completed, failed or cancelled', () => {
    expect(canTransition('queued', 'running')).toBe(true);
    expect(canTransition('running', 'completed')).toBe(true);
    expect(canTransition('running', 'failed')).toBe(true);
    expect(canTransition('running', 'cancelled')).toBe(true);
    expect(canTransition('completed', 'queued')).toBe(false);
  });

  it('only a failed or cancelled job can be retried', () => {
    expect(() => assertRetryable(1, 'failed')).not.toThrow();
    expect(() => assertRetryable(1, 'cancelled')).not.toThrow();
    expect(() => assertRetryable(7, 'completed')).toThrow(new AppError('job_wrong_state', { detail: 'jobb 7 er completed; bare jobber som er failed eller cancelled kan prøves igjen' }));
  });

  it('only a queued or running job can be cancelled', () => {
    expect(() => assertCancellable(1, 'queued')).not.toThrow();
    expect(() => assertCancellable(1, 'running')).not.toThrow();
    expect(() => assertCancellable(3, 'failed')).toThrow(/jobb 3 er failed/);
  });
});
