import pg from 'pg';
import type { Logger } from '@inntak/core';

/** The three notification channels of db/migrations/004.do.realtime.sql, and the mixer's (013.do.media.sql). */
export const CHANGE_CHANNELS = ['inntak_nodes', 'inntak_edges', 'inntak_access', 'inntak_mixer'] as const;
export type ChangeChannel = (typeof CHANGE_CHANNELS)[number];

export interface ChangeNotice {
  channel: ChangeChannel;
  payload: Record<string, unknown>;
}

export interface ChangeListenerOptions {
  connectionString: string;
  logger: Logger;
  /** Called with every notice that arrived while the previous burst was being handled, in order. */
  onBurst(notices: ChangeNotice[]): Promise<void>;
  /** Called after the connection was lost and made again: notices in between were missed. */
  onReconnect(): void;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export const LISTENER_APPLICATION_NAME = 'inntak-realtime-listener';

/**
 * One dedicated LISTEN connection (its own pg.Client, never a pooled one: a pooled client would
 * be handed to other queries and lose its LISTEN). Notices are handed on in bursts so the reader
 * makes one query per burst, not one per row; a lost connection is remade with backoff.
 */
export class ChangeListener {
  private client: pg.Client | undefined;
  private queue: ChangeNotice[] = [];
  private draining = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private idle: Promise<void> = Promise.resolve();

  constructor(private readonly options: ChangeListenerOptions) {}

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => {});
    await this.idle;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString, application_name: LISTENER_APPLICATION_NAME });
    client.on('notification', (message) => {
      if (!message.payload) return;
      try {
        this.queue.push({ channel: message.channel as ChangeChannel, payload: JSON.parse(message.payload) as Record<string, unknown> });
      } catch {
        this.options.logger.warn('unparsable change notification', { channel: message.channel });
        return;
      }
      this.drain();
    });
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      if (this.stopped) return;
      this.options.logger.warn('realtime listener lost its connection', { error: error?.message });
      this.reconnect(this.options.minBackoffMs ?? 100);
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    await client.connect();
    await client.query(CHANGE_CHANNELS.map((c) => `listen ${c}`).join('; '));
    this.client = client;
  }

  private reconnect(delayMs: number): void {
    this.retryTimer = setTimeout(() => {
      this.connect().then(
        () => {
          this.options.logger.info('realtime listener reconnected');
          this.options.onReconnect();
        },
        (error: Error) => {
          if (this.stopped) return;
          this.options.logger.warn('realtime listener could not reconnect', { error: error.message, retry_ms: delayMs });
          this.reconnect(Math.min(delayMs * 2, this.options.maxBackoffMs ?? 5000));
        },
      );
    }, delayMs);
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    this.idle = (async () => {
      // Let the rest of a transaction's notifications (delivered together) join the burst.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const burst = this.queue;
        this.queue = [];
        try {
          await this.options.onBurst(burst);
        } catch (error) {
          this.options.logger.error('realtime burst failed', { error: (error as Error).message, notices: burst.length });
        }
      }
      this.draining = false;
    })();
  }
}
