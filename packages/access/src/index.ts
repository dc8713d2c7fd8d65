export { ACCESS_LEVELS, grants, isAccessLevel, type AccessLevel, type AccessRow } from './levels.js';
export { authenticate, type Caller, type IdentityDirectory, type TokenVerifier } from './identity.js';
