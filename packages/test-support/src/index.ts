export { startTestIssuer, type TestIssuer } from './issuer.js';
export { startHotStandby, type HotStandby } from './hot-standby.js';
export { startStoppablePostgres, type StoppablePostgres } from './stoppable-postgres.js';
export { freePort } from './free-port.js';
export { CHROMIUM_PATH, describeWithEngine, engineUnavailable, ENGINES, POCKETSPHINX_MODEL_DIR, NATS_URL, POSTGRES_BIN, type EngineName } from './engines.js';
export { htmlErrors } from './html-checker.js';
