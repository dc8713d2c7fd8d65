import { sql } from 'kysely';
import { MAX_PENDING_LOGINS, type StoredLogin, type StoredSession, type StudioSessionStore } from '@inntak/studio';
import type { Db } from '../platform/index.js';

/** The console's sessions and logins under way (migration 022). */
export class PostgresStudioSessionStore implements StudioSessionStore {
  constructor(private readonly db: Db) {}

  async insertSession(tokenHash: Buffer, session: StoredSession): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      // Expired rows go on every login: the tables stay as small as the live sessions.
      await trx.deleteFrom('studio_sessions').where('expires_at', '<', new Date()).execute();
      await trx.deleteFrom('studio_logins').where('expires_at', '<', new Date()).execute();
      await trx
        .insertInto('studio_sessions')
        .values({ token_hash: tokenHash, issuer: session.issuer, subject: session.subject, csrf_token: session.csrfToken, expires_at: session.expiresAt })
        .execute();
    });
  }

  async findSession(tokenHash: Buffer, now: Date): Promise<StoredSession | undefined> {
    const row = await this.db
      .selectFrom('studio_sessions')
      .select(['issuer', 'subject', 'csrf_token', 'expires_at'])
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row && { issuer: row.issuer, subject: row.subject, csrfToken: row.csrf_token, expiresAt: row.expires_at };
  }

  async deleteSession(tokenHash: Buffer): Promise<void> {
    await this.db.deleteFrom('studio_sessions').where('token_hash', '=', tokenHash).execute();
  }

  async insertLogin(stateHash: Buffer, login: StoredLogin, expiresAt: Date): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const now = new Date();
      await trx.deleteFrom('studio_logins').where('expires_at', '<', now).execute();
      // Counted up to the cap only (the expires_at index), so the check stays cheap when full.
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from (select 1 from studio_logins where expires_at >= ${now} limit ${MAX_PENDING_LOGINS}) live`.execute(trx);
      if ((rows[0]?.n ?? 0) >= MAX_PENDING_LOGINS) return false;
      await trx.insertInto('studio_logins').values({ state_hash: stateHash, code_verifier: login.codeVerifier, nonce: login.nonce, expires_at: expiresAt }).execute();
      return true;
    });
  }

  async takeLogin(stateHash: Buffer, now: Date): Promise<StoredLogin | undefined> {
    const row = await this.db.deleteFrom('studio_logins').where('state_hash', '=', stateHash).returning(['code_verifier', 'nonce', 'expires_at']).executeTakeFirst();
    return row && row.expires_at > now ? { codeVerifier: row.code_verifier, nonce: row.nonce } : undefined;
  }
}
