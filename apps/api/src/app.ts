import express, { type Express } from 'express';
import type { Logger, SharedKey } from '@inntak/core';
import type { GraphStore, IdentityDirectory, TokenVerifier } from '@inntak/access';
import type { InspectorStore, IntakeStore, SpoolSnapshot, WebhookAdminStore } from '@inntak/intake';
import type { AbResultsStore } from '@inntak/ab-testing';
import type { PublishedPages, PublishingStore } from '@inntak/publishing';
import type { NodeQueryStore } from '@inntak/graph';
import type { DatabaseStats } from '@inntak/core';
import type { FileStore, MediaStore, SpeechQueueLimits, UploadLimits } from '@inntak/media';
import type { OrchestrationLimits, OrchestrationStore } from '@inntak/orchestration';
import { requireCaller } from './auth.js';
import { installMe } from './rest/me.js';
import { installJobAdmin, type JobAdminDeps } from './rest/job-admin.js';
import { errorHandler } from './errors.js';
import { installGraphIntentions } from './rest/graph-intentions.js';
import { installSiteFiles } from './rest/site-files.js';
import { installHealth, type IssuerStatus } from './rest/health.js';
import { installNodeRead } from './rest/node-read.js';
import { installOpenApi } from './rest/openapi.js';
import { installMedia } from './rest/media.js';
import { installMediaUpload } from './rest/media-upload.js';
import { installMediaTranscription } from './rest/media-transcription.js';
import { installMixer } from './rest/mixer.js';
import { installOrchestration } from './rest/orchestration.js';
import { installOrchestrationManage } from './rest/orchestration-manage.js';
import { createMetrics, installMetrics, installRequestCounting } from './metrics.js';
import { installQueryNodes } from './rest/query-nodes.js';
import { authThen, readsPerCaller } from './read-limits.js';
import { installRequestLogging } from './request-logging.js';
import { installPublishedDomains, installPublishedPages, publishingDeps, type PublishingDeps } from './pages/publishing.js';
import { installPublishingIntentions } from './rest/publishing-intentions.js';
import { installAbTestIntentions } from './rest/ab-test-intentions.js';
import { RouteRegistry } from './route-registry.js';
import { installWebhookAdmin } from './rest/webhook-admin.js';
import { installDeliveries } from './rest/deliveries.js';
import { installDeliveryInspector } from './rest/delivery-inspector.js';
import { installWebhookIntake } from './rest/webhook-intake.js';
import { installStudio, type StudioSettings } from './console/studio.js';
import { readRouting, type ReadRouter } from './read-routing.js';

export interface AppDeps {
  logger: Logger;
  intakeStore: IntakeStore;
  /** Resolves once the change notices of every intake answered so far are sent (PostgresIntakeStore.noticesSent). */
  intakeNoticesSent?: () => Promise<void>;
  verifier: TokenVerifier;
  identities: IdentityDirectory;
  /** The graph's write port: the graph intentions' use cases (packages/access) write through it. */
  graphStore: GraphStore;
  /** Orchestration's port: creating an orchestration (its cap) and its log. */
  orchestrationStore: OrchestrationStore;
  /** Public base URL, for the intake URLs the webhook operations hand out. */
  baseUrl: string;
  databaseReady: () => Promise<void>;
  /** The intake spool's state (issue 37), when intake spools while the database is away. */
  intakeSpool?: () => Promise<SpoolSnapshot>;
  /** Token lookups since start by what answered (the intake's webhook cache, docs/deliveries.md#outages). */
  intakeTokenLookups?: () => { memory: number; database: number };
  /** Whether OIDC_ISSUER answers, for /health/ready; absent: no issuer to ask. */
  issuerStatus?: () => Promise<IssuerStatus>;
  nodeQueries: NodeQueryStore;
  /** The key that seals /query/nodes cursors. */
  cursorKey: () => Promise<Uint8Array>;
  databaseStats: () => Promise<DatabaseStats>;
  /** Bearer token a metrics scraper may use instead of an admin JWT; absent: admins only. */
  metricsToken?: string;
  bodyLimitBytes: number;
  /** Check every registry route's answer against its response schema (on in tests). */
  checkResponses?: boolean;
  slowRequestMs: number;
  jobAdmin: JobAdminDeps;
  /** Media's store: media nodes, mixer channels, live rooms (packages/media use cases). */
  media: MediaStore;
  /** The media file store (STORAGE_DIR). */
  files: FileStore;
  /** What generate_tts refuses in advance (TTS_*, MEDIA_BYTES_PER_COLLECTION); absent: the defaults. */
  speech?: SpeechQueueLimits;
  /** What POST /media takes (UPLOAD_MAX_*_BYTES, MEDIA_BYTES_PER_COLLECTION); absent: the defaults. */
  uploads?: UploadLimits;
  /** MEDIA_URL_SECRET: the HMAC key of signed media links; absent: `mediaLinkKey` (docs/media.md). */
  mediaUrlSecret?: string;
  /** The signed media links' key every API process shares (server_secrets `media_link`); absent: a key of this process. */
  mediaLinkKey?: SharedKey;
  /** The clock of signed media links, in ms; absent: Date.now (tests move it). */
  now?: () => number;
  /** Expensive reads one caller may run at once (READ_CONCURRENCY_PER_CALLER); default 4. */
  readsPerCaller?: number;
  /** The orchestration routes' per-person caps (config.ts `orchestration`, as api-server.ts hands it on). */
  orchestration: OrchestrationLimits;
  publishing: Omit<PublishingDeps, 'pages' | 'logger'>;
  /** The publishing use cases' store (create_publication, publish_article, variants, overrides). */
  publishingStore: PublishingStore;
  /** The A/B results' reads (GET /publications/{id}/ab_results). */
  abResults: AbResultsStore;
  /** The published pages' reads. */
  publishedPages: PublishedPages;
  /** Webhook administration's store (create, template, token, delete, list). */
  webhookAdmin: WebhookAdminStore;
  /** The deliveries' store (delivery log, signing secrets, re-rendering). */
  deliveries: InspectorStore;
  /** TRUST_PROXY: Express's 'trust proxy' (hop count or addresses); absent: the socket's address is the client's. */
  trustProxy?: number | string;
  /** The console at /studio (sessions, its reads, the login); absent: no console. */
  studio?: StudioSettings;
  /** READ_DATABASE_URL: who reads where, so a caller reads its own writes (read-routing.ts). */
  readRouter?: ReadRouter;
  /** Signs the read-your-writes cookie every API process honours (server_secrets `read_position`); absent: no cookie. */
  readPositionKey?: SharedKey;
}

const API_VERSION = '0.1.0';

/** Builds the Express app from its dependencies; listening is the caller's business. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Behind a reverse proxy: whose X-Forwarded-For to believe (TRUST_PROXY), for req.ip.
  if (deps.trustProxy !== undefined) app.set('trust proxy', deps.trustProxy);
  const metrics = createMetrics();
  installRequestCounting(app, metrics);
  installRequestLogging(app, { logger: deps.logger, slowMs: deps.slowRequestMs });
  if (deps.readRouter) app.use(readRouting(deps.readRouter, deps.logger, deps.readPositionKey));
  // Every route declares itself here, so /openapi.json covers the whole surface.
  const routes = new RouteRegistry({ checkResponses: deps.checkResponses });
  // Tests walk every declared route (string-fields.test.ts): registryOf(app).
  app.locals.routeRegistry = routes;
  const mediaFiles = { files: deps.files, logger: deps.logger, touch: (id: string) => deps.media.touchMediaAccess(id) };
  const publishing = publishingDeps({ pages: deps.publishedPages, logger: deps.logger, baseUrl: deps.baseUrl, mediaFiles, ...deps.publishing });
  installPublishedDomains(app, publishing);
  const replicaStatus = deps.readRouter && (() => deps.readRouter!.status());
  installHealth(app, routes, { ...deps, replicaStatus, spool: deps.intakeSpool });
  installSiteFiles(app, routes);
  installWebhookIntake(app, routes, { store: deps.intakeStore, logger: deps.logger, bodyLimitBytes: deps.bodyLimitBytes });
  const auth = requireCaller({ verifier: deps.verifier, directory: deps.identities });
  installMe(app, routes, auth);
  installWebhookAdmin(app, routes, auth, deps);
  installDeliveries(app, routes, auth, deps);
  installDeliveryInspector(app, routes, auth, deps);
  installGraphIntentions(app, routes, auth, deps);
  const limitedReads = authThen(auth, readsPerCaller(deps.readsPerCaller ?? 4));
  installNodeRead(app, routes, limitedReads, deps);
  installQueryNodes(app, routes, limitedReads, { store: deps.nodeQueries, cursorKey: deps.cursorKey });
  installMetrics(app, routes, auth, {
    metrics,
    databaseStats: deps.databaseStats,
    metricsToken: deps.metricsToken,
    replicaStatus,
    spool: deps.intakeSpool,
    tokenLookups: deps.intakeTokenLookups,
  });
  installJobAdmin(app, routes, auth, deps.jobAdmin);
  installMedia(app, routes, auth, { media: deps.media, files: deps.files, logger: deps.logger, speech: deps.speech, baseUrl: deps.baseUrl, mediaUrlSecret: deps.mediaUrlSecret, mediaLinkKey: deps.mediaLinkKey, now: deps.now });
  installMediaUpload(app, routes, auth, { media: deps.media, files: deps.files, ...(deps.uploads ? { uploads: deps.uploads } : {}) });
  installMediaTranscription(app, routes, auth, deps);
  installMixer(app, routes, auth, deps);
  installPublishingIntentions(app, routes, auth, { store: deps.publishingStore, abResults: deps.abResults });
  installAbTestIntentions(app, routes, auth, { store: deps.publishingStore });
  installPublishedPages(app, routes, publishing);
  installOrchestration(app, routes, auth, deps);
  installOrchestrationManage(app, routes, auth, deps);
  if (deps.studio) installStudio(app, routes, { ...deps, studio: deps.studio });
  installOpenApi(app, routes, { version: API_VERSION, baseUrl: deps.baseUrl });
  app.use((_req, res) => {
    res.status(404).json({ error: 'Finnes ikke' });
  });
  app.use(errorHandler(deps.logger));
  return app;
}
