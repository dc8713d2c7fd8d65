export { startTestIssuer, type TestIssuer } from './issuer.js';
