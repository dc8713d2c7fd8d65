import { DEV_ISSUER, openDevIssuer } from '@inntak/dev-issuer';
import { required, UsageError, type Options } from './command-line.js';
import type { CliConfig } from './config.js';

/**
 * `inntak token`: a short-lived JWT from the development issuer, whose key lives in the data
 * directory. Only an API started with INNTAK_DEV_ISSUER=1 on loopback accepts it.
 */
export async function devToken(config: CliConfig, options: Options): Promise<{ token: string; issuer: string; subject: string; expires_at: string }> {
  const subject = required(options, 'subject');
  const raw = typeof options.minutes === 'string' ? options.minutes : '15';
  const minutes = /^\d{1,2}$/.test(raw) ? Number(raw) : NaN;
  if (!(minutes >= 1 && minutes <= 60)) throw new UsageError(`--minutes må være et helt tall fra 1 til 60; fikk «${raw}»`);
  const issuer = await openDevIssuer(config.dataDir);
  const token = await issuer.sign(subject, minutes);
  return { token, issuer: DEV_ISSUER, subject, expires_at: new Date(Date.now() + minutes * 60_000).toISOString() };
}
