import { io as connectClient, type Socket } from 'socket.io-client';
import { OidcTokenVerifier } from '../oidc-verifier.js';
import { startApiServer, type ApiServer } from '../api-server.js';
import type { RealtimeHubDeps } from '../realtime/realtime-hub.js';
import type { AppDeps } from '../app.js';
import type { TestContext } from './helpers.js';

/** An API instance as main.ts starts it (app and realtime hub on one http server), on port 0. */
export function startApiInstance(ctx: TestContext, realtime: Partial<RealtimeHubDeps> = {}, app: Partial<AppDeps> = {}): Promise<ApiServer> {
  return startApiServer(
    {
      logger: ctx.logger,
      database: ctx.database,
      databaseUrl: ctx.testDb.url,
      baseUrl: 'http://127.0.0.1',
      verifier: new OidcTokenVerifier(ctx.issuer.issuer, ctx.issuer.audience, ctx.logger),
      bodyLimitBytes: 25 * 1024 * 1024,
      slowRequestMs: 200,
      realtime: { maxQueue: 1000, initialSync: { collections: 50, nodesPerCollection: 20 }, listenerBackoffMs: { min: 20, max: 200 }, ...realtime },
      app,
    },
    0,
    '127.0.0.1',
  );
}

export interface StreamEvent {
  type: string;
  row: Record<string, unknown>;
  at: string;
  [key: string]: unknown;
}

/**
 * A real socket.io client that records every event it receives, and lets a test await the
 * first event matching a condition (or assert none came).
 */
export class StreamClient {
  readonly events: StreamEvent[] = [];
  private waiters: Array<{ test: (e: StreamEvent) => boolean; resolve: (e: StreamEvent) => void }> = [];

  constructor(readonly socket: Socket) {
    socket.onAny((name: string, payload: StreamEvent) => {
      const event = { ...payload, type: payload?.type ?? name };
      this.events.push(event);
      this.waiters = this.waiters.filter((w) => {
        if (!w.test(event)) return true;
        w.resolve(event);
        return false;
      });
    });
  }

  /** The first event (already received or yet to come) that passes `test`. */
  next(test: (e: StreamEvent) => boolean, timeoutMs = 30_000, description = test.toString()): Promise<StreamEvent> {
    const seen = this.events.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description}`)), timeoutMs);
      // A wait nobody awaits any more (a refused connection's initial_sync) must not hold the run.
      timer.unref();
      this.waiters.push({
        test,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  of(type: string, id?: string): StreamEvent[] {
    return this.events.filter((e) => e.type === type && (id === undefined || e.row?.id === id));
  }

  close(): void {
    this.socket.close();
  }
}

/** Connects and resolves once initial_sync arrived; rejects with the server's refusal text. */
export async function connectStream(url: string, token: string | undefined, options: { viaHeader?: boolean } = {}): Promise<StreamClient> {
  const socket = connectClient(url, {
    path: '/ws',
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    ...(options.viaHeader ? { extraHeaders: { authorization: `Bearer ${token}` } } : { auth: token === undefined ? {} : { token } }),
  });
  const client = new StreamClient(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect_error', (error) => {
      socket.close();
      reject(error);
    });
    socket.once('disconnect', (reason) => reject(new Error(`disconnected before initial_sync: ${reason}`)));
    client.next((e) => e.type === 'initial_sync').then(() => resolve(), reject);
  });
  return client;
}
