import { connect, headers, StorageType, StringCodec, type JetStreamClient, type JetStreamManager, type KV, type StoredMsg, type NatsConnection } from 'nats';
import { decodeEntry, decodeTarget, encodeEntry, encodeTarget, SpoolFullError, type KeptTarget, type Spool, type SpooledEntry, type SpoolEntry, type SpoolStats } from '@inntak/intake';

/** Direct get of the next message of a subject at or after a sequence (the stream allows it). */
type DirectStreamAPI = { getMessage(stream: string, query: { seq: number; next_by_subj: string }): Promise<StoredMsg> };

export interface NatsSpoolOptions {
  /** INTAKE_SPOOL_URL: nats://host:port[,…]. */
  url: string;
  maxBytes: number;
  /** Copies JetStream keeps of every entry (INTAKE_SPOOL_REPLICAS; 3 on a cluster). */
  replicas?: number;
  /** The stream's name; tests give each run its own. */
  stream?: string;
}

const codec = StringCodec();

/**
 * The fleet's spool: a JetStream stream with file storage, so what one API process accepted
 * any other can replay (ephemeral disks lose a local spool with the host). An append is
 * answered once JetStream acknowledged it (stored on a quorum of its replicas); appends in
 * flight together are acknowledged together. The message id is the node id, so a retried
 * publish is stored once. Targets are kept in a key-value bucket by token hash.
 */
export class NatsSpool implements Spool {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager & { direct: DirectStreamAPI },
    private readonly kv: KV,
    private readonly stream: string,
    private readonly maxBytes: number,
  ) {}

  static async open(options: NatsSpoolOptions): Promise<NatsSpool> {
    const nc = await connect({ servers: options.url.split(','), name: 'inntak-intake-spool', maxReconnectAttempts: -1 });
    // The client's manager has the direct-get API; its declared type does not say so.
    const jsm = (await nc.jetstreamManager()) as JetStreamManager & { direct: DirectStreamAPI };
    const stream = options.stream ?? 'INNTAK_INTAKE_SPOOL';
    const config = {
      name: stream,
      subjects: [`${stream.toLowerCase()}.entries`],
      storage: StorageType.File,
      num_replicas: options.replicas ?? 1,
      allow_direct: true,
      // The stream itself refuses past the bound, so a fleet shares one limit.
      max_bytes: options.maxBytes,
      discard: 'new' as never,
      duplicate_window: 120 * 1_000_000_000,
    };
    await jsm.streams.add(config).catch(async () => jsm.streams.update(stream, config));
    const js = nc.jetstream();
    const kv = await js.views.kv(`${stream}_targets`, { storage: StorageType.File, replicas: options.replicas ?? 1, history: 1 });
    return new NatsSpool(nc, js, jsm, kv, stream, options.maxBytes);
  }

  private get subject(): string {
    return `${this.stream.toLowerCase()}.entries`;
  }

  async append(entry: SpoolEntry): Promise<void> {
    const h = headers();
    h.set('Inntak-Arrived-At', String(entry.log.receivedAt.getTime()));
    const data = codec.encode(encodeEntry(entry));
    try {
      await this.js.publish(this.subject, data, { msgID: entry.node.id, headers: h });
    } catch (error) {
      // The stream refuses past max_bytes (discard new); the server's error for it varies by version.
      const { state } = await this.jsm.streams.info(this.stream);
      if (state.bytes + data.length > this.maxBytes) throw new SpoolFullError(this.maxBytes);
      throw error;
    }
  }

  async peek(limit: number): Promise<SpooledEntry[]> {
    const out: SpooledEntry[] = [];
    let seq = (await this.jsm.streams.info(this.stream)).state.first_seq;
    while (out.length < limit) {
      let msg;
      try {
        msg = await this.jsm.direct.getMessage(this.stream, { seq, next_by_subj: this.subject });
      } catch (error) {
        if (/message not found|no message found/i.test(String((error as Error).message))) break;
        throw error;
      }
      out.push({ ...decodeEntry(codec.decode(msg.data)), ref: msg.seq, bytes: msg.data.length });
      seq = msg.seq + 1;
    }
    return out;
  }

  async remove(refs: readonly number[]): Promise<void> {
    for (const ref of refs) {
      // Another process may have replayed and removed it: that is the point of a shared spool.
      await this.jsm.streams.deleteMessage(this.stream, ref, false).catch(() => false);
    }
  }

  async stats(): Promise<SpoolStats> {
    const { state } = await this.jsm.streams.info(this.stream);
    if (state.messages === 0) return { entries: 0, bytes: 0, oldestAt: null };
    const first = await this.jsm.direct.getMessage(this.stream, { seq: state.first_seq, next_by_subj: this.subject });
    const arrived = Number(first.header.get('Inntak-Arrived-At'));
    return { entries: state.messages, bytes: state.bytes, oldestAt: new Date(Number.isFinite(arrived) && arrived > 0 ? arrived : first.time.getTime()) };
  }

  async keepTargets(webhookId: string, kept: readonly KeptTarget[]): Promise<void> {
    const now = new Set(kept.map((one) => one.tokenHash));
    for (const old of await this.targets()) {
      if (old.target.webhookId === webhookId && !now.has(old.tokenHash)) await this.kv.delete(old.tokenHash);
    }
    for (const one of kept) await this.kv.put(one.tokenHash, codec.encode(encodeTarget(one)));
  }

  async forgetTarget(webhookId: string): Promise<void> {
    for (const kept of await this.targets()) {
      if (kept.target.webhookId === webhookId) await this.kv.delete(kept.tokenHash);
    }
  }

  async targets(): Promise<KeptTarget[]> {
    const out: KeptTarget[] = [];
    // The keys first, then their values: a get awaited inside the keys' iteration ends it early
    // (a bucket of two keys listed one).
    const keys: string[] = [];
    for await (const key of await this.kv.keys()) keys.push(key);
    for (const key of keys) {
      const entry = await this.kv.get(key);
      if (entry && entry.operation === 'PUT') out.push(decodeTarget(codec.decode(entry.value)));
    }
    return out;
  }

  /** Tests: the stream and bucket go with the run. */
  async destroy(): Promise<void> {
    await this.jsm.streams.delete(this.stream).catch(() => false);
    await this.kv.destroy().catch(() => false);
    await this.close();
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => {});
  }
}
