export { startTestIssuer, type TestIssuer } from './issuer.js';
export { startHotStandby, hotStandbyUnavailable, POSTGRES_BIN, type HotStandby } from './hot-standby.js';
export { freePort } from './free-port.js';
