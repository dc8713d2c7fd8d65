export { ACCESS_LEVELS, grants, isAccessLevel, type AccessLevel, type AccessRow } from './levels.js';
export { authenticate, authenticateSession, OPERATOR, type Session, type Actor, type Caller, type IdentityDirectory, type TokenVerifier } from './identity.js';
export { nodeForReader, viewOf, canAdminister, FULL_VISIBILITIES, SUMMARY_VISIBILITIES, type NodeView, type ReaderRelation } from './read-rules.js';
export {
  belongsToCap,
  inheritedLevel,
  EDGE_CLEANUP_LEVEL,
  OPEN_TARGET_EDGE_TYPES,
  edgeRequirement,
  effectiveLevel,
  grantingEdge,
  levelGrantedBy,
  levelToGrant,
  meets,
  requireCreatableKind,
  requireSystemAdmin,
  GRANTING_EDGE_TYPES,
  RESERVED_NODE_KINDS,
  requireGenericEdge,
} from './grants.js';
export {
  nodeDeliveries,
  edgeDeliveries,
  accessDeliveries,
  relationOf,
  type AudienceFacts,
  type Delivery,
} from './audience.js';
