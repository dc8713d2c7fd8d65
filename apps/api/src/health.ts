import type { Express } from 'express';

/** GET /health: public liveness (always 200). GET /health/ready: 200 only when the database answers. */
export function installHealth(app: Express, deps: { databaseReady: () => Promise<void> }): void {
  app.get('/health', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    try {
      await deps.databaseReady();
      res.status(200).json({ status: 'ok', database: 'ok' });
    } catch {
      res.status(503).json({ error: 'Databasen svarer ikke' });
    }
  });
}
