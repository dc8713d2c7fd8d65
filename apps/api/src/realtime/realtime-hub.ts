import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import { AppError, coerceError, type Logger } from '@inntak/core';
import {
  accessDeliveries,
  authenticateSession,
  edgeDeliveries,
  nodeDeliveries,
  nodeForReader,
  relationOf,
  type Caller,
  type Change,
  type ChangeFeed,
  type ChangeNotice,
  type ChangeSubscription,
  type Delivery,
  type IdentityDirectory,
  type InitialSyncBounds,
  type TokenVerifier,
} from '@inntak/access';
import { mixerDeliveries, type MixerFeed } from '@inntak/media';
import { errorResponse } from '../errors.js';

/**
 * The realtime change stream at /ws (docs/realtime.md). Database notifications come in through
 * one LISTEN connection, are read as full rows once per burst, and each change's audience is
 * computed once and delivered through rooms: one per subject, and `everyone` for every
 * authenticated client. Each client's outgoing queue is bounded; a client that overflows it
 * loses its queue and is told to resync, so it never holds the others back.
 */
export interface RealtimeHubDeps {
  logger: Logger;
  /** The change stream: notices, full rows, the initial snapshot (postgres: LISTEN/NOTIFY). */
  feed: ChangeFeed;
  mixer: MixerFeed;
  verifier: TokenVerifier;
  identities: IdentityDirectory;
  /** Packets a client may have waiting before it is told to resync. */
  maxQueue: number;
  initialSync: InitialSyncBounds;
  listenerBackoffMs?: { min: number; max: number };
}

/** Running totals, for /metrics and the benchmark. */
export interface RealtimeStats {
  bursts: number;
  changes: number;
  overflows: number;
  resyncs: number;
  /** Time spent reading and delivering bursts, from the first notice handled to the last emit. */
  burstMsTotal: number;
  burstMsMax: number;
  /** Of burstMsTotal, the time spent reading rows from the database. */
  readMsTotal: number;
}

export type ResyncReason = 'overflow' | 'listener_reconnected' | 'read_failed';

export const EVERYONE_ROOM = 'everyone';
const MIXER_CHANNEL = 'inntak_mixer';
/** initial_sync.mixer: the most recently changed channels of the rooms the client may read. */
const MIXER_SYNC_LIMIT = 500;
const subjectRoom = (personId: string) => `subject:${personId}`;

const EVENT_NAMES = {
  nodes: { insert: 'node.created', update: 'node.updated', delete: 'node.deleted' },
  edges: { insert: 'edge.created', update: 'edge.updated', delete: 'edge.deleted' },
  node_access: { insert: 'access.created', update: 'access.updated', delete: 'access.deleted' },
} as const;

export class RealtimeHub {
  readonly io: Server;
  private readonly listener: ChangeSubscription;
  /** Sockets that overflowed and wait for their resync to leave; they get nothing else meanwhile. */
  private readonly resyncing = new Set<string>();
  /** Connecting sockets whose initial_sync is being read: their events wait until it is sent. */
  private readonly syncing = new Map<string, Array<[string, unknown]>>();
  private readonly overflowListeners = new Set<(socketId: string) => void>();
  private readonly counters: RealtimeStats = { bursts: 0, changes: 0, overflows: 0, resyncs: 0, burstMsTotal: 0, burstMsMax: 0, readMsTotal: 0 };

  constructor(
    server: HttpServer,
    private readonly deps: RealtimeHubDeps,
  ) {
    this.io = new Server(server, { path: '/ws', serveClient: false, cors: { origin: false } });
    this.io.use((socket, next) => {
      this.authenticateSocket(socket).then(
        () => next(),
        (error: unknown) => next(this.refusal(error)),
      );
    });
    this.io.on('connection', (socket) => void this.onConnection(socket));
    this.listener = deps.feed.subscribe({
      logger: deps.logger,
      minBackoffMs: deps.listenerBackoffMs?.min,
      maxBackoffMs: deps.listenerBackoffMs?.max,
      onBurst: (notices) => this.onBurst(notices),
      onReconnect: () => this.resyncAll('listener_reconnected'),
    });
  }

  async start(): Promise<void> {
    await this.listener.start();
  }

  async stop(): Promise<void> {
    await this.listener.stop();
    this.io.disconnectSockets(true);
    // io.close() would also close the http server; its owner does that.
    this.io.engine.close();
  }

  stats(): RealtimeStats & { clients: number } {
    return { ...this.counters, clients: this.io.of('/').sockets.size };
  }

  /** Observes overflows (tests and metrics). */
  onOverflow(listener: (socketId: string) => void): () => void {
    this.overflowListeners.add(listener);
    return () => this.overflowListeners.delete(listener);
  }

  private async authenticateSocket(socket: Socket): Promise<void> {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const header = typeof token === 'string' && token !== '' ? (/^Bearer\s/i.test(token) ? token : `Bearer ${token}`) : socket.handshake.headers.authorization;
    const session = await authenticateSession(header, { verifier: this.deps.verifier, directory: this.deps.identities });
    socket.data.caller = session.caller;
    socket.data.expiresAt = session.expiresAt;
  }

  /**
   * A token is checked once, at the handshake; the connection must not outlive it. At expiry the
   * client gets `session_expired` and is disconnected, and reconnects with a fresh token.
   */
  private endAtExpiry(socket: Socket, expiresAt: Date | null): void {
    if (!expiresAt) return;
    // setTimeout holds at most 2^31-1 ms (~24.8 days); a longer token is cut there, and the
    // client simply reconnects.
    const ms = Math.min(Math.max(expiresAt.getTime() - Date.now(), 0), 2 ** 31 - 1);
    const timer = setTimeout(() => {
      socket.emit('session_expired', { type: 'session_expired', at: new Date().toISOString() });
      socket.disconnect(true);
    }, ms);
    timer.unref();
    socket.once('disconnect', () => clearTimeout(timer));
  }

  /** The handshake refusal carries the same text (and status) REST would answer. */
  private refusal(error: unknown): Error {
    const appError = error instanceof AppError ? error : undefined;
    if (!appError) this.deps.logger.error('websocket handshake failed', { error: coerceError(error).message });
    const { status, body } = errorResponse(appError ?? new AppError('invalid_token'));
    return Object.assign(new Error(body.error), { data: { status, ...body } });
  }

  private async onConnection(socket: Socket): Promise<void> {
    const caller = socket.data.caller as Caller;
    this.endAtExpiry(socket, socket.data.expiresAt as Date | null);
    // Rooms first, so no change committed after the snapshot was read can be missed; the events
    // that arrive meanwhile wait and follow initial_sync.
    const waiting: Array<[string, unknown]> = [];
    this.syncing.set(socket.id, waiting);
    await socket.join([EVERYONE_ROOM, subjectRoom(caller.personId)]);
    try {
      const [snapshot, mixer] = await Promise.all([
        this.deps.feed.initialSync(caller.personId, this.deps.initialSync),
        this.deps.mixer.channelsFor(caller.personId, MIXER_SYNC_LIMIT),
      ]);
      socket.emit('initial_sync', { type: 'initial_sync', ...snapshot, mixer, at: new Date().toISOString() });
      this.syncing.delete(socket.id);
      if (waiting.length > this.deps.maxQueue) this.sendResync(socket, 'overflow');
      else for (const [type, payload] of waiting) socket.emit(type, payload);
    } catch (error) {
      this.syncing.delete(socket.id);
      this.deps.logger.error('initial_sync failed', { error: coerceError(error).message, person_id: caller.personId });
      socket.disconnect(true);
    }
  }

  private async onBurst(notices: ChangeNotice[]): Promise<void> {
    const started = performance.now();
    await this.deliverBurst(notices);
    const ms = performance.now() - started;
    this.counters.bursts += 1;
    this.counters.burstMsTotal += ms;
    this.counters.burstMsMax = Math.max(this.counters.burstMsMax, ms);
  }

  private async deliverBurst(notices: ChangeNotice[]): Promise<void> {
    // Nobody to tell: skip the read. A client connecting later starts from initial_sync, which
    // reads the current rows itself (its rooms are joined before, so nothing after is missed).
    if (this.io.of('/').sockets.size === 0) return;
    const mixerNotices = notices.filter((n) => n.channel === MIXER_CHANNEL);
    if (mixerNotices.length > 0) {
      await this.deliverMixer(mixerNotices);
      notices = notices.filter((n) => n.channel !== MIXER_CHANNEL);
      if (notices.length === 0) return;
    }
    let changes: Change[];
    const started = performance.now();
    try {
      changes = await this.deps.feed.readChanges(notices);
      this.counters.readMsTotal += performance.now() - started;
    } catch (error) {
      this.deps.logger.error('reading changed rows failed', { error: coerceError(error).message, notices: notices.length });
      this.resyncAll('read_failed');
      return;
    }
    // A subject who gets a node's row in this burst anyway (its node change was judged with the
    // subject's new access row) needs no separate node.visible.
    const seenWith = new Set<string>();
    for (const c of changes) {
      if (c.table === 'nodes' && c.op !== 'delete') for (const [subject] of c.facts?.access ?? []) seenWith.add(`${subject}/${c.row.id}`);
    }
    this.counters.changes += changes.length;
    const held = this.holdBack();
    for (const change of changes) {
      const type = EVENT_NAMES[change.table][change.op];
      if (change.table === 'nodes') {
        if (change.facts) this.deliver(type, change.at, nodeDeliveries(change.row, change.facts), held);
      } else if (change.table === 'edges') {
        this.deliver(type, change.at, edgeDeliveries(change.row, change.source, change.target), held);
      } else {
        this.deliver(type, change.at, accessDeliveries(change.row, change.object), held);
        const { node, object, row } = change;
        if (node && object && change.op !== 'delete' && !seenWith.has(`${row.subject_id}/${node.id}`)) {
          const visible = nodeForReader(node, relationOf(object, row.subject_id));
          if (visible) this.deliver('node.visible', change.at, [{ row: visible, subjects: [row.subject_id], everyone: false }], held);
        }
      }
    }
  }

  /**
   * Mixer channel changes (docs/media.md): each channel is read as it is now, so clients that
   * got several changes of one channel end with its latest state, and sent as
   * mixer_channel_changed to the clients who may read its room.
   */
  private async deliverMixer(notices: ChangeNotice[]): Promise<void> {
    let channels;
    try {
      channels = await this.deps.mixer.readChanges(
        notices.map((n) => n.payload.id as string),
      );
    } catch (error) {
      this.deps.logger.error('reading mixer channels failed', { error: coerceError(error).message, notices: notices.length });
      this.resyncAll('read_failed');
      return;
    }
    const held = this.holdBack();
    const at = (notices[notices.length - 1]!.payload.at as string | undefined) ?? new Date().toISOString();
    for (const { channel, room } of channels) this.deliver('mixer_channel_changed', at, mixerDeliveries(channel, room), held);
  }

  /**
   * The clients that get nothing from this burst: those whose queue is still full from earlier
   * bursts (now dropped, and told to resync) and those waiting for a resync to leave. Checked
   * once per burst, so a healthy client is never judged by the burst it is being sent.
   */
  private holdBack(): string[] {
    const held: string[] = [];
    for (const socket of this.io.of('/').sockets.values()) {
      if (this.resyncing.has(socket.id) || this.overflowed(socket)) held.push(socket.id);
    }
    return held;
  }

  /**
   * Emits each delivery once to its rooms (socket.io encodes it once), leaving out the
   * subjects of the change's other deliveries and the held-back clients. Clients still waiting
   * for their initial_sync get theirs queued.
   */
  private deliver(type: string, at: string, deliveries: Delivery<unknown>[], held: string[]): void {
    const named = deliveries.flatMap((d) => d.subjects.map(subjectRoom));
    for (const delivery of deliveries) {
      const rooms = delivery.everyone ? [EVERYONE_ROOM] : delivery.subjects.map(subjectRoom);
      if (rooms.length === 0) continue;
      const payload = { type, row: delivery.row, at };
      const except = delivery.everyone ? [...named, ...held] : [...held];
      for (const [socketId, waiting] of this.syncing) {
        const socket = this.io.of('/').sockets.get(socketId);
        except.push(socketId);
        if (!socket || !rooms.some((room) => socket.rooms.has(room))) continue;
        if (delivery.everyone && named.some((room) => socket.rooms.has(room))) continue;
        waiting.push([type, payload]);
      }
      this.io.to(rooms).except(except).emit(type, payload);
    }
  }

  /** True when the client's queue is full; its queue is then dropped and a resync sent. */
  private overflowed(socket: Socket): boolean {
    const engine = socket.conn as unknown as { writeBuffer: unknown[]; packetsFn: unknown[] };
    if (engine.writeBuffer.length < this.deps.maxQueue) return false;
    engine.writeBuffer = [];
    engine.packetsFn = [];
    this.deps.logger.warn('realtime client overflowed its queue; resync sent', {
      person_id: (socket.data.caller as Caller).personId,
      max_queue: this.deps.maxQueue,
    });
    this.counters.overflows += 1;
    this.sendResync(socket, 'overflow');
    for (const listener of this.overflowListeners) listener(socket.id);
    return true;
  }

  private sendResync(socket: Socket, reason: ResyncReason): void {
    this.counters.resyncs += 1;
    this.resyncing.add(socket.id);
    // Once the resync has left the queue, the client gets events again (newer than its refetch).
    const release = () => {
      this.resyncing.delete(socket.id);
      socket.conn.off('drain', release);
      socket.conn.off('close', release);
    };
    socket.conn.on('drain', release);
    socket.conn.on('close', release);
    socket.emit('resync', { type: 'resync', reason, at: new Date().toISOString() });
  }

  private resyncAll(reason: ResyncReason): void {
    for (const socket of this.io.of('/').sockets.values()) {
      if (!this.resyncing.has(socket.id)) this.sendResync(socket, reason);
    }
  }
}
