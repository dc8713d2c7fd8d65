export { DEV_AUDIENCE, DEV_ISSUER, openDevIssuer, type DevIssuer } from './dev-issuer.js';
