import { describe, expect, it } from '@jest/globals';
import { nameOfRaw } from './forge-push.js';
import { growth, LINEAR_GROWTH } from './__tests__/adversarial.js';

// The per-template adversarial-text tests are adversarial-text-<template>.test.ts.
describe("a commit author's raw \"Name <email>\"", () => {
  it('keeps the name, as before, without a quadratic regex', () => {
    expect(nameOfRaw('Jane Doe <jane@example.com>')).toBe('Jane Doe');
    expect(nameOfRaw('Jane Doe  <jane@example.com>  ')).toBe('Jane Doe');
    expect(nameOfRaw('Jane Doe')).toBe('Jane Doe');
    expect(nameOfRaw('a <b> c')).toBe('a <b> c');
    const work = (size: number) => {
      const raw = `x${'<'.repeat(size)}`;
      return () => nameOfRaw(raw);
    };
    expect(growth(work)).toBeLessThan(LINEAR_GROWTH);
  });
});
