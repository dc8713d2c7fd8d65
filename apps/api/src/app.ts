import express, { type Express } from 'express';
import type { Logger } from '@inntak/core';
import type { IdentityDirectory, TokenVerifier } from '@inntak/access';
import type { IntakeStore } from '@inntak/intake';
import { installMe, requireCaller } from './auth.js';
import { installJobAdmin, type JobAdminDeps } from './job-admin.js';
import { errorHandler } from './errors.js';
import { installHealth } from './health.js';
import { installRequestLogging } from './request-logging.js';
import { installWebhookIntake } from './webhook-intake.js';

export interface AppDeps {
  logger: Logger;
  intakeStore: IntakeStore;
  verifier: TokenVerifier;
  identities: IdentityDirectory;
  databaseReady: () => Promise<void>;
  bodyLimitBytes: number;
  slowRequestMs: number;
  jobAdmin: JobAdminDeps;
}

/** Builds the Express app from its dependencies; listening is the caller's business. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  installRequestLogging(app, { logger: deps.logger, slowMs: deps.slowRequestMs });
  installHealth(app, deps);
  installWebhookIntake(app, { store: deps.intakeStore, logger: deps.logger, bodyLimitBytes: deps.bodyLimitBytes });
  const auth = requireCaller({ verifier: deps.verifier, directory: deps.identities });
  installMe(app, auth);
  installJobAdmin(app, auth, deps.jobAdmin);
  app.use((_req, res) => {
    res.status(404).json({ error: 'Finnes ikke' });
  });
  app.use(errorHandler(deps.logger));
  return app;
}
